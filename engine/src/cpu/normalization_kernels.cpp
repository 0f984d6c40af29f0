// Layer normalisation over the rows of a contiguous [rows, cols] matrix and its gradients, each in
// one kernel where the composed ops take eight. A row's mean and variance are summed in double in
// two passes (the mean first, then the squared deviations from it), which stays accurate when the
// mean is large against the spread, where E[x^2] - E[x]^2 would cancel.

#include <cmath>
#include <vector>

#include "cpu/cpu_kernels.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {

namespace {

const float* floats_or_null(const Tensor& tensor) {
  return tensor.defined() ? tensor.data<float>() : nullptr;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& x, const Tensor& weight,
                                              const Tensor& bias, double eps) {
  const auto [rows, cols] = layer_norm_extents(x, weight, bias, "layer_norm");
  const auto count = static_cast<double>(cols);
  Tensor mean = empty({rows}, {.device = x.device()});
  Tensor rstd = empty({rows}, {.device = x.device()});
  Tensor out = empty(x.shape(), {.device = x.device()});
  const float* scale = floats_or_null(weight);
  const float* shift = floats_or_null(bias);
  for (std::int64_t row = 0; row < rows; ++row) {
    const float* input = x.data<float>() + row * cols;
    float* result = out.data<float>() + row * cols;
    double total = 0.0;
    for (std::int64_t i = 0; i < cols; ++i)
      total += input[i];
    const double row_mean = total / count;
    double squares = 0.0;
    for (std::int64_t i = 0; i < cols; ++i) {
      const double centred = input[i] - row_mean;
      squares += centred * centred;
    }
    const double row_rstd = 1.0 / std::sqrt(squares / count + eps);
    for (std::int64_t i = 0; i < cols; ++i) {
      double value = (input[i] - row_mean) * row_rstd;
      if (scale != nullptr) value *= scale[i];
      if (shift != nullptr) value += shift[i];
      result[i] = static_cast<float>(value);
    }
    mean.data<float>()[row] = static_cast<float>(row_mean);
    rstd.data<float>()[row] = static_cast<float>(row_rstd);
  }
  return {std::move(out), std::move(mean), std::move(rstd)};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& x,
                                                       const Tensor& weight, const Tensor& mean,
                                                       const Tensor& rstd,
                                                       const LayerNormGradNeeds& needs) {
  const auto [rows, cols] = layer_norm_backward_extents(grad, x, weight, mean, rstd);
  const auto count = static_cast<double>(cols);
  const float* scale = floats_or_null(weight);
  Tensor grad_input = needs.input ? empty(x.shape(), {.device = x.device()}) : Tensor();
  std::vector<double> weight_sums(needs.weight ? static_cast<std::size_t>(cols) : 0, 0.0);
  std::vector<double> bias_sums(needs.bias ? static_cast<std::size_t>(cols) : 0, 0.0);
  for (std::int64_t row = 0; row < rows; ++row) {
    const float* upstream = grad.data<float>() + row * cols;
    const float* input = x.data<float>() + row * cols;
    const double row_mean = mean.data<float>()[row];
    const double row_rstd = rstd.data<float>()[row];
    auto normalised = [&](std::int64_t i) { return (input[i] - row_mean) * row_rstd; };
    auto scaled_grad = [&](std::int64_t i) {
      return scale != nullptr ? static_cast<double>(upstream[i]) * scale[i] : upstream[i];
    };
    if (needs.input) {
      // d/dx of (x - mean) * rstd: the gradient less its row mean, less its projection on the
      // normalised row, all times rstd.
      double grad_total = 0.0;
      double grad_dot = 0.0;
      for (std::int64_t i = 0; i < cols; ++i) {
        grad_total += scaled_grad(i);
        grad_dot += scaled_grad(i) * normalised(i);
      }
      const double grad_mean = grad_total / count;
      const double grad_projection = grad_dot / count;
      float* result = grad_input.data<float>() + row * cols;
      for (std::int64_t i = 0; i < cols; ++i) {
        result[i] = static_cast<float>(
            row_rstd * (scaled_grad(i) - grad_mean - normalised(i) * grad_projection));
      }
    }
    for (std::size_t i = 0; i < weight_sums.size(); ++i) {
      const auto col = static_cast<std::int64_t>(i);
      weight_sums[i] += upstream[col] * normalised(col);
    }
    for (std::size_t i = 0; i < bias_sums.size(); ++i)
      bias_sums[i] += upstream[i];
  }
  auto column_sums = [&x](const std::vector<double>& sums) {
    Tensor result = empty({static_cast<std::int64_t>(sums.size())}, {.device = x.device()});
    for (std::size_t i = 0; i < sums.size(); ++i)
      result.data<float>()[i] = static_cast<float>(sums[i]);
    return result;
  };
  return {std::move(grad_input), needs.weight ? column_sums(weight_sums) : Tensor(),
          needs.bias ? column_sums(bias_sums) : Tensor()};
}

}  // namespace tscope::engine::cpu
