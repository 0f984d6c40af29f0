#include "tscope/engine/optim/adam.h"

#include <cmath>
#include <utility>

#include "tscope/engine/autograd.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/profiler/record.h"

namespace tscope::engine::optim {

Adam::Adam(std::vector<Tensor> parameters, AdamOptions options)
    : Adam(std::move(parameters), options, WeightDecay::kL2) {}

Adam::Adam(std::vector<Tensor> parameters, AdamOptions options, WeightDecay weight_decay)
    : Optimizer(std::move(parameters), options.learning_rate),
      options_(options),
      weight_decay_(weight_decay),
      first_moments_(this->parameters().size()),
      second_moments_(this->parameters().size()) {}

void Adam::step() {
  const profiler::Range range("optimizer step", trace::Category::kOptimizer);
  NoGradGuard no_grad;
  ++step_count_;
  const double bias_correction1 = 1.0 - std::pow(options_.beta1, step_count_);
  const double bias_correction2 = 1.0 - std::pow(options_.beta2, step_count_);
  const double step_size = learning_rate() / bias_correction1;
  const double inverse_sqrt_correction2 = 1.0 / std::sqrt(bias_correction2);

  const auto& params = parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor parameter = params[i];
    Tensor gradient = parameter.grad();
    if (!gradient.defined()) {
      continue;
    }
    if (options_.weight_decay != 0.0) {
      if (weight_decay_ == WeightDecay::kDecoupled) {
        parameter.mul_(1.0 - learning_rate() * options_.weight_decay);
      } else {
        gradient = add(gradient, mul(parameter, options_.weight_decay));
      }
    }
    Tensor& first = first_moments_[i];
    Tensor& second = second_moments_[i];
    if (!first.defined()) {
      first = zeros_like(parameter);
      second = zeros_like(parameter);
    }
    first.mul_(options_.beta1).add_(gradient, 1.0 - options_.beta1);
    second.mul_(options_.beta2).add_(mul(gradient, gradient), 1.0 - options_.beta2);
    const Tensor denominator = add(mul(sqrt(second), inverse_sqrt_correction2), options_.eps);
    parameter.add_(div(first, denominator), -step_size);
  }
}

}  // namespace tscope::engine::optim
