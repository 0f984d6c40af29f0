// Optimizer updates as single kernels: one pass over a parameter, its gradient and its state,
// where composing them from elementwise ops takes eight passes and six temporaries.

#include <array>
#include <cmath>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {

void adam_step(Tensor& parameter, const Tensor& gradient, Tensor& first_moment,
               Tensor& second_moment, const AdamStepConfig& config) {
  const std::array<const Tensor*, 4> operands{&parameter, &gradient, &first_moment, &second_moment};
  for (const Tensor* tensor : operands) {
    require_dtype(*tensor, DType::kFloat32, "adam_step_");
    if (!tensor->is_contiguous() || tensor->shape() != parameter.shape()) {
      throw EngineError("adam_step_: parameter, gradient and moments must be contiguous tensors of shape " +
                        shape_to_string(parameter.shape()));
    }
  }
  float* values = parameter.data<float>();
  const float* gradients = gradient.data<float>();
  float* first = first_moment.data<float>();
  float* second = second_moment.data<float>();
  const auto beta1 = static_cast<float>(config.beta1);
  const auto beta2 = static_cast<float>(config.beta2);
  const auto eps = static_cast<float>(config.eps);
  const auto step_size = static_cast<float>(config.step_size);
  const auto inverse_sqrt_correction2 = static_cast<float>(config.inverse_sqrt_correction2);
  const auto l2_decay = static_cast<float>(config.l2_decay);
  const auto decoupled_scale = static_cast<float>(config.decoupled_scale);
  const std::int64_t count = parameter.numel();
  for (std::int64_t i = 0; i < count; ++i) {
    const float g = gradients[i] + l2_decay * values[i];
    first[i] = beta1 * first[i] + (1.0f - beta1) * g;
    second[i] = beta2 * second[i] + (1.0f - beta2) * g * g;
    const float denominator = std::sqrt(second[i]) * inverse_sqrt_correction2 + eps;
    values[i] = values[i] * decoupled_scale - step_size * first[i] / denominator;
  }
}

}  // namespace tscope::engine::cpu
