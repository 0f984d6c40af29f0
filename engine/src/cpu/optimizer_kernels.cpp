// Optimizer updates as single kernels over a list of parameters: one pass over each parameter,
// its gradient and its state, where composing them from elementwise ops takes up to eight passes
// and six temporaries per parameter (Adam) or three passes and a temporary (SGD).

#include <cmath>
#include <initializer_list>
#include <string>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {

void check_optimizer_operands(const char* op_name, std::span<const Tensor> parameters,
                              std::span<const Tensor> gradients,
                              std::initializer_list<std::span<const Tensor>> states) {
  bool parallel = gradients.size() == parameters.size();
  for (const std::span<const Tensor> state : states)
    parallel &= state.size() == parameters.size();
  if (!parallel) {
    std::string sizes;
    for (const std::span<const Tensor> state : states)
      sizes += "/" + std::to_string(state.size());
    throw EngineError(std::string(op_name) + ": " + std::to_string(parameters.size()) +
                      " parameters but " + std::to_string(gradients.size()) +
                      " gradients and state lists of " + (sizes.empty() ? "-" : sizes.substr(1)));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Shape& shape = parameters[i].shape();
    const auto check = [&](const Tensor& tensor) {
      require_dtype(tensor, DType::kFloat32, op_name);
      if (!tensor.is_contiguous() || tensor.shape() != shape) {
        throw EngineError(std::string(op_name) + ": parameter " + std::to_string(i) +
                          ", its gradient and state must be contiguous tensors of shape " +
                          shape_to_string(shape));
      }
    };
    check(parameters[i]);
    check(gradients[i]);
    for (const std::span<const Tensor> state : states)
      check(state[i]);
  }
}

void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config) {
  check_optimizer_operands("adam_step_", parameters, gradients, {first_moments, second_moments});
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

void sgd_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
              std::span<Tensor> momentum_buffers, const SgdStepConfig& config) {
  const bool momentum = config.momentum != 0.0;
  if (momentum) {
    check_optimizer_operands("sgd_step_", parameters, gradients, {momentum_buffers});
  } else {
    check_optimizer_operands("sgd_step_", parameters, gradients, {});
  }
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
