// The fused bias + GELU + dropout kernels: one pass over memory where the unfused ops take three
// (add, gelu, mul by a mask drawn by a fourth), which is the saving the fusion analysis estimates.

#include <algorithm>

#include "cpu/cpu_kernels.h"
#include "cpu/gelu_math.h"
#include "cpu/mask_draw.h"
#include "kernel_operands.h"
#include "philox.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {}  // namespace

std::pair<Tensor, Tensor> bias_gelu_dropout(const Tensor& x, const Tensor& bias,
                                            double drop_probability, Generator& generator) {
  const std::int64_t features = checked_bias_features(x, bias, "bias_gelu_dropout");
  Tensor out = empty(x.shape(), {.device = x.device()});
  Tensor mask = empty(x.shape(), {.device = x.device()});
  const float* input = x.data<float>();
  const float* shift = bias.data<float>();
  float* result = out.data<float>();
  float* kept = mask.data<float>();
  // Without dropout the generator is left as it was, on both devices.
  MaskDraw draw(1.0 - drop_probability, 1.0 / (1.0 - drop_probability),
                drop_probability == 0.0 ? PhiloxStream{}
                                        : generator.reserve(static_cast<std::uint64_t>(x.numel())));
  const std::int64_t rows = x.numel() / features;
  // Row-major order, one draw per element: the same mask the unfused dropout draws from a seed.
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t feature = 0; feature < features; ++feature) {
      const std::int64_t i = row * features + feature;
      kept[i] = drop_probability == 0.0 ? 1.0f : draw();
      result[i] = gelu_value(input[i] + shift[feature]) * kept[i];
    }
  }
  return {std::move(out), std::move(mask)};
}

std::pair<Tensor, Tensor> bias_gelu_dropout_backward(const Tensor& grad, const Tensor& x,
                                                     const Tensor& bias, const Tensor& mask) {
  const std::int64_t features = checked_bias_gelu_dropout_backward_features(grad, x, bias, mask);
  Tensor grad_input = empty(x.shape(), {.device = x.device()});
  Tensor grad_bias = empty(bias.shape(), {.device = bias.device()});
  const float* upstream = grad.data<float>();
  const float* input = x.data<float>();
  const float* shift = bias.data<float>();
  const float* kept = mask.data<float>();
  float* result = grad_input.data<float>();
  float* bias_result = grad_bias.data<float>();
  std::fill(bias_result, bias_result + features, 0.0f);
  const std::int64_t rows = x.numel() / features;
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t feature = 0; feature < features; ++feature) {
      const std::int64_t i = row * features + feature;
      result[i] = upstream[i] * kept[i] * gelu_slope(input[i] + shift[feature]);
      bias_result[feature] += result[i];
    }
  }
  return {std::move(grad_input), std::move(grad_bias)};
}

}  // namespace tscope::engine::cpu
