#include "tscope/engine/optim/sgd.h"

#include <span>
#include <utility>
#include <vector>

#include "dispatch.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/factories.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::optim {

Sgd::Sgd(std::vector<Tensor> parameters, SgdOptions options)
    : Optimizer(std::move(parameters), options.learning_rate),
      options_(options),
      momentum_buffers_(this->parameters().size()) {}

void Sgd::step() {
  const profiler::Range range("optimizer step", trace::Category::kOptimizer);
  NoGradGuard no_grad;
  const bool momentum = options_.momentum != 0.0;
  // One fused update of every parameter that has a gradient (one CUDA launch), instead of up to
  // three elementwise ops per parameter with a temporary.
  std::vector<Tensor> updated;
  std::vector<Tensor> gradients;
  std::vector<Tensor> buffers;
  const auto& params = parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor gradient = params[i].grad();
    if (!gradient.defined()) continue;
    updated.push_back(params[i]);
    gradients.push_back(gradient.contiguous());
    if (momentum) {
      // Zero, so the first step's buffer is the gradient itself.
      if (!momentum_buffers_[i].defined()) momentum_buffers_[i] = zeros_like(params[i]);
      buffers.push_back(momentum_buffers_[i]);
    }
  }
  if (updated.empty()) return;
  run_op<SgdStepKernel>(OpKind::kSgdStep, std::span<Tensor>(updated),
                        std::span<const Tensor>(gradients), std::span<Tensor>(buffers),
                        SgdStepConfig{.learning_rate = learning_rate(),
                                      .momentum = options_.momentum,
                                      .weight_decay = options_.weight_decay});
}

}  // namespace tscope::engine::optim
