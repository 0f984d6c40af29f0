#include "tscope/engine/optim/adam.h"

#include <cmath>
#include <utility>

#include "tscope/engine/autograd.h"
#include "tscope/engine/dispatch.h"
#include "tscope/engine/factories.h"
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
  const bool decoupled = weight_decay_ == WeightDecay::kDecoupled;
  const AdamStepConfig config{
      .beta1 = options_.beta1,
      .beta2 = options_.beta2,
      .eps = options_.eps,
      .step_size = learning_rate() / bias_correction1,
      .inverse_sqrt_correction2 = 1.0 / std::sqrt(bias_correction2),
      .l2_decay = decoupled ? 0.0 : options_.weight_decay,
      .decoupled_scale = decoupled ? 1.0 - learning_rate() * options_.weight_decay : 1.0};

  const auto& params = parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor parameter = params[i];
    const Tensor gradient = parameter.grad();
    if (!gradient.defined()) {
      continue;
    }
    Tensor& first = first_moments_[i];
    Tensor& second = second_moments_[i];
    if (!first.defined()) {
      first = zeros_like(parameter);
      second = zeros_like(parameter);
    }
    // One fused pass per parameter instead of a chain of eight memory-bound elementwise ops with
    // their temporaries.
    run_op<AdamStepKernel>(OpKind::kAdamStep, parameter, gradient.contiguous(), first, second,
                           config);
  }
}

}  // namespace tscope::engine::optim
