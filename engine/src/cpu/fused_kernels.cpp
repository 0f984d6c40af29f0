// The fused bias + GELU + dropout kernels: one pass over memory where the unfused ops take three
// (add, gelu, mul by a mask drawn by a fourth), each row's values in a loop that vectorises.

#include <algorithm>

#include "cpu/cpu_kernels.h"
#include "cpu/gelu_math.h"
#include "cpu/mask_draw.h"
#include "kernel_operands.h"
#include "philox.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// One row of the forward pass once its mask is drawn: restrict operands, so GCC vectorises it.
void bias_gelu_dropout_row(const float* __restrict input, const float* __restrict shift,
                           const float* __restrict kept, float* __restrict result,
                           std::int64_t features) {
  for (std::int64_t feature = 0; feature < features; ++feature)
    result[feature] = gelu_value(input[feature] + shift[feature]) * kept[feature];
}

// One row of the backward pass: the input's gradient, and the row's share of the bias gradient.
void bias_gelu_dropout_backward_row(const float* __restrict upstream, const float* __restrict input,
                                    const float* __restrict shift, const float* __restrict kept,
                                    float* __restrict result, float* __restrict bias_result,
                                    std::int64_t features) {
  for (std::int64_t feature = 0; feature < features; ++feature) {
    result[feature] =
        upstream[feature] * kept[feature] * gelu_slope(input[feature] + shift[feature]);
    bias_result[feature] += result[feature];
  }
}

}  // namespace

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
  const std::int64_t count = x.numel();
  if (drop_probability == 0.0) {
    std::fill(kept, kept + count, 1.0f);
  } else {
    // Row-major order, one draw per element: the same mask the unfused dropout draws from a seed.
    draw_mask(1.0 - drop_probability, 1.0 / (1.0 - drop_probability),
              generator.reserve(static_cast<std::uint64_t>(count)), kept, count);
  }
  for (std::int64_t at = 0; at < count; at += features)
    bias_gelu_dropout_row(input + at, shift, kept + at, result + at, features);
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
  const std::int64_t count = x.numel();
  for (std::int64_t at = 0; at < count; at += features) {
    bias_gelu_dropout_backward_row(upstream + at, input + at, shift, kept + at, result + at,
                                   bias_result, features);
  }
  return {std::move(grad_input), std::move(grad_bias)};
}

}  // namespace tscope::engine::cpu
