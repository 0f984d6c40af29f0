// Optimizer updates as single kernels over a list of parameters: one pass over each parameter,
// its gradient and its state, where composing them from elementwise ops takes up to eight passes
// and six temporaries per parameter (Adam) or three passes and a temporary (SGD).

#include <cmath>
#include <initializer_list>
#include <string>

#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {
namespace {

// One range of one parameter; restrict operands so that GCC vectorises the loop. It computes in
// float, as the CUDA kernel does.
void adam_update(float* __restrict values, const float* __restrict gradient,
                 float* __restrict first, float* __restrict second, std::int64_t count,
                 const AdamStepConfig& config) {
  const auto beta1 = static_cast<float>(config.beta1);
  const auto beta2 = static_cast<float>(config.beta2);
  const auto eps = static_cast<float>(config.eps);
  const auto step_size = static_cast<float>(config.step_size);
  const auto inverse_sqrt_correction2 = static_cast<float>(config.inverse_sqrt_correction2);
  const auto l2_decay = static_cast<float>(config.l2_decay);
  const auto decoupled_scale = static_cast<float>(config.decoupled_scale);
  for (std::int64_t i = 0; i < count; ++i) {
    const float g = gradient[i] + l2_decay * values[i];
    first[i] = beta1 * first[i] + (1.0f - beta1) * g;
    second[i] = beta2 * second[i] + (1.0f - beta2) * g * g;
    const float denominator = std::sqrt(second[i]) * inverse_sqrt_correction2 + eps;
    values[i] = values[i] * decoupled_scale - step_size * first[i] / denominator;
  }
}

}  // namespace

void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config) {
  check_optimizer_operands("adam_step_", parameters, gradients, {first_moments, second_moments});
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    float* values = parameters[p].data<float>();
    const float* gradient = gradients[p].data<float>();
    float* first = first_moments[p].data<float>();
    float* second = second_moments[p].data<float>();
    parallel_for(parameters[p].numel(), kElementwiseGrain,
                 [&](std::int64_t begin, std::int64_t end) {
                   adam_update(values + begin, gradient + begin, first + begin, second + begin,
                               end - begin, config);
                 });
  }
}

void sgd_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
              std::span<Tensor> momentum_buffers, const SgdStepConfig& config) {
  const bool momentum = config.momentum != 0.0;
  check_sgd_operands(parameters, gradients, momentum_buffers, momentum);
  const auto alpha = static_cast<float>(-config.learning_rate);
  const auto beta = static_cast<float>(config.momentum);
  const auto decay = static_cast<float>(config.weight_decay);
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    float* values = parameters[p].data<float>();
    const float* gradient = gradients[p].data<float>();
    float* buffer = momentum ? momentum_buffers[p].data<float>() : nullptr;
    const std::int64_t count = parameters[p].numel();
    for (std::int64_t i = 0; i < count; ++i) {
      float g = decay != 0.0f ? gradient[i] + values[i] * decay : gradient[i];
      if (momentum) {
        buffer[i] = buffer[i] * beta + g;
        g = buffer[i];
      }
      values[i] = values[i] + alpha * g;
    }
  }
}

}  // namespace tscope::engine::cpu
