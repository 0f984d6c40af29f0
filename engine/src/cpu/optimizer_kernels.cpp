// Optimizer updates as single kernels: one pass over each parameter, its gradient and its state,
// where composing them from elementwise ops takes eight passes and six temporaries.

#include <cmath>
#include <initializer_list>
#include <string>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {

void check_adam_operands(std::span<const Tensor> parameters, std::span<const Tensor> gradients,
                         std::span<const Tensor> first_moments,
                         std::span<const Tensor> second_moments) {
  if (gradients.size() != parameters.size() || first_moments.size() != parameters.size() ||
      second_moments.size() != parameters.size()) {
    throw EngineError("adam_step_: " + std::to_string(parameters.size()) + " parameters but " +
                      std::to_string(gradients.size()) + " gradients and " +
                      std::to_string(first_moments.size()) + "/" +
                      std::to_string(second_moments.size()) + " moments");
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Shape& shape = parameters[i].shape();
    for (const Tensor* tensor :
         {&parameters[i], &gradients[i], &first_moments[i], &second_moments[i]}) {
      require_dtype(*tensor, DType::kFloat32, "adam_step_");
      if (!tensor->is_contiguous() || tensor->shape() != shape) {
        throw EngineError("adam_step_: parameter " + std::to_string(i) +
                          ", its gradient and moments must be contiguous tensors of shape " +
                          shape_to_string(shape));
      }
    }
  }
}

void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config) {
  check_adam_operands(parameters, gradients, first_moments, second_moments);
  const auto beta1 = static_cast<float>(config.beta1);
  const auto beta2 = static_cast<float>(config.beta2);
  const auto eps = static_cast<float>(config.eps);
  const auto step_size = static_cast<float>(config.step_size);
  const auto inverse_sqrt_correction2 = static_cast<float>(config.inverse_sqrt_correction2);
  const auto l2_decay = static_cast<float>(config.l2_decay);
  const auto decoupled_scale = static_cast<float>(config.decoupled_scale);
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    float* values = parameters[p].data<float>();
    const float* gradient = gradients[p].data<float>();
    float* first = first_moments[p].data<float>();
    float* second = second_moments[p].data<float>();
    const std::int64_t count = parameters[p].numel();
    for (std::int64_t i = 0; i < count; ++i) {
      const float g = gradient[i] + l2_decay * values[i];
      first[i] = beta1 * first[i] + (1.0f - beta1) * g;
      second[i] = beta2 * second[i] + (1.0f - beta2) * g * g;
      const float denominator = std::sqrt(second[i]) * inverse_sqrt_correction2 + eps;
      values[i] = values[i] * decoupled_scale - step_size * first[i] / denominator;
    }
  }
}

}  // namespace tscope::engine::cpu
