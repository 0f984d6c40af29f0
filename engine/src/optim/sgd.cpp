#include "tscope/engine/optim/sgd.h"

#include <utility>

#include "tscope/engine/autograd.h"
#include "tscope/engine/ops.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::optim {

Sgd::Sgd(std::vector<Tensor> parameters, SgdOptions options)
    : Optimizer(std::move(parameters), options.learning_rate),
      options_(options),
      momentum_buffers_(this->parameters().size()) {}

void Sgd::step() {
  const profiler::Range range("optimizer step", trace::Category::kOptimizer);
  NoGradGuard no_grad;
  const auto& params = parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor parameter = params[i];
    Tensor gradient = parameter.grad();
    if (!gradient.defined()) {
      continue;
    }
    if (options_.weight_decay != 0.0) {
      gradient = add(gradient, mul(parameter, options_.weight_decay));
    }
    if (options_.momentum != 0.0) {
      Tensor& buffer = momentum_buffers_[i];
      if (!buffer.defined()) {
        buffer = gradient.clone();
      } else {
        buffer.mul_(options_.momentum).add_(gradient);
      }
      gradient = buffer;
    }
    parameter.add_(gradient, -learning_rate());
  }
}

}  // namespace tscope::engine::optim
