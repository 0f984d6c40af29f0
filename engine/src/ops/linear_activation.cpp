// The fused linear layer: x [..., in] is folded to rows, the kernel produces the activated output
// (and GELU's pre-activation), and the backward pass runs the activation's gradient, then the
// weight and bias gradients as one op and the input gradient as a matrix product.

#include <string>
#include <vector>

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {

Tensor linear_activation(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         FusedActivation activation) {
  if (weight.dim() != 2 || x.dim() < 1 || x.shape().back() != weight.shape()[1] ||
      bias.shape() != Shape{weight.shape()[0]}) {
    throw EngineError(
        "linear_activation: expected x [..., in], weight [out, in] and bias [out], "
        "got " +
        shape_to_string(x.shape()) + ", " + shape_to_string(weight.shape()) + " and " +
        shape_to_string(bias.shape()));
  }
  const std::int64_t in_features = weight.shape()[1];
  const std::int64_t out_features = weight.shape()[0];
  const Tensor rows = x.reshape({-1, in_features});
  auto [out, pre_activation] =
      run_op<LinearActivationKernel>(OpKind::kLinearActivation, rows, weight, bias, activation);
  // ReLU's gradient is decided by the output's sign, so only GELU keeps its pre-activation.
  const Tensor gradient_source =
      activation == FusedActivation::kRelu ? out.detach() : pre_activation;
  record_if_needed(
      out, "LinearActivationBackward", {rows, weight, bias},
      [rows = rows.detach(), weight = weight.detach(), gradient_source, activation](
          const Tensor& grad, const GradNeeds& needs) {
        const Tensor pre_activation_grad = run_op<BinaryKernel>(
            activation == FusedActivation::kRelu ? OpKind::kReluBackward : OpKind::kGeluBackward,
            grad, gradient_source);
        std::vector<Tensor> grads(3);
        if (needs[0]) grads[0] = matmul(pre_activation_grad, weight);
        if (needs[1] || needs[2]) {
          auto [weight_grad, bias_grad] = run_op<LinearWeightBiasBackwardKernel>(
              OpKind::kLinearWeightBiasBackward, pre_activation_grad, rows);
          if (needs[1]) grads[1] = weight_grad;
          if (needs[2]) grads[2] = bias_grad;
        }
        return grads;
      });
  Shape shape(x.shape().begin(), x.shape().end() - 1);
  shape.push_back(out_features);
  return out.reshape(shape);
}

}  // namespace tscope::engine
