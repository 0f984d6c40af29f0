// Fused ops: one kernel doing the work of a chain of memory-bound ops, the alternative the
// analyzer's fusion findings point to.

#include <string>

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {

Tensor bias_gelu_dropout(const Tensor& x, const Tensor& bias, double p, bool training,
                         Generator& generator) {
  if (p < 0.0 || p >= 1.0) {
    throw EngineError("bias_gelu_dropout: probability " + std::to_string(p) + " is outside [0, 1)");
  }
  const double drop_probability = training ? p : 0.0;
  const Tensor input = x.contiguous();
  const Tensor shift = bias.contiguous();
  auto [out, mask] = run_op<BiasGeluDropoutKernel>(OpKind::kBiasGeluDropout, input, shift,
                                                   drop_probability, generator);
  // `mask = mask`: clang 14 (the sanitizer build's compiler) cannot capture a structured binding
  // by name.
  record_if_needed(out, "BiasGeluDropoutBackward", {x, bias},
                   [input = input.detach(), shift = shift.detach(), mask = mask](
                       const Tensor& grad, const GradNeeds& needs) {
                     auto [grad_input, grad_bias] = run_op<BiasGeluDropoutBackwardKernel>(
                         OpKind::kBiasGeluDropoutBackward, grad.contiguous(), input, shift, mask);
                     return std::vector<Tensor>{needs[0] ? grad_input : Tensor(),
                                                needs[1] ? grad_bias : Tensor()};
                   });
  return out;
}

}  // namespace tscope::engine
