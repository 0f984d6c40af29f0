#include "tscope/engine/optim/adam.h"

#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "dispatch.h"
#include "tscope/engine/autograd.h"
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

  // One fused update of every parameter that has a gradient: a single op (one CUDA launch)
  // instead of a chain of eight memory-bound elementwise ops per parameter.
  std::vector<Tensor> updated;
  std::vector<Tensor> gradients;
  std::vector<Tensor> first;
  std::vector<Tensor> second;
  const auto& params = parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor gradient = params[i].grad();
    if (!gradient.defined()) continue;
    if (!first_moments_[i].defined()) {
      first_moments_[i] = zeros_like(params[i]);
      second_moments_[i] = zeros_like(params[i]);
    }
    updated.push_back(params[i]);
    gradients.push_back(gradient.contiguous());
    first.push_back(first_moments_[i]);
    second.push_back(second_moments_[i]);
  }
  if (updated.empty()) return;
  run_op<AdamStepKernel>(OpKind::kAdamStep, std::span<Tensor>(updated),
                         std::span<const Tensor>(gradients), std::span<Tensor>(first),
                         std::span<Tensor>(second), config);
}

}  // namespace tscope::engine::optim
