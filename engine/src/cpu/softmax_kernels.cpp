// Softmax and log-softmax over the last dim, with the row maximum subtracted first so exp never
// overflows, and their gradients.

#include <cmath>

#include "cpu/cpu_kernels.h"
#include "cpu/softmax_math.h"
#include "kernel_operands.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// Calls row_fn(out_row, in_rows..., length) for each row of the last dim of dense tensors.
template <typename RowFn>
Tensor map_rows(const Tensor& first, const Tensor& second, const char* op_name, RowFn row_fn) {
  require_dtype(first, DType::kFloat32, op_name);
  require_dtype(second, DType::kFloat32, op_name);
  const Tensor lhs = dense(first);
  const Tensor rhs = dense(second);
  Tensor out = empty(first.shape(), {.device = first.device()});
  const std::int64_t length = first.dim() == 0 ? 1 : first.shape().back();
  const std::int64_t rows = length == 0 ? 0 : first.numel() / length;
  for (std::int64_t r = 0; r < rows; ++r) {
    row_fn(out.data<float>() + r * length, lhs.data<float>() + r * length,
           rhs.data<float>() + r * length, length);
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x) {
  return map_rows(x, x, "softmax", [](float* out, const float* in, const float*, std::int64_t n) {
    const auto [row_max, log_total] = row_log_normaliser(in, n);
    for (std::int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<float>(std::exp(static_cast<double>(in[i] - row_max) - log_total));
    }
  });
}

Tensor log_softmax(const Tensor& x) {
  return map_rows(x, x, "log_softmax",
                  [](float* out, const float* in, const float*, std::int64_t n) {
                    const auto [row_max, log_total] = row_log_normaliser(in, n);
                    for (std::int64_t i = 0; i < n; ++i) {
                      out[i] = static_cast<float>(static_cast<double>(in[i] - row_max) - log_total);
                    }
                  });
}

Tensor softmax_backward(const Tensor& grad, const Tensor& y) {
  return map_rows(grad, y, "softmax_backward",
                  [](float* out, const float* g, const float* s, std::int64_t n) {
                    double dot = 0.0;
                    for (std::int64_t i = 0; i < n; ++i)
                      dot += static_cast<double>(g[i]) * s[i];
                    for (std::int64_t i = 0; i < n; ++i) {
                      out[i] = static_cast<float>(s[i] * (g[i] - dot));
                    }
                  });
}

Tensor log_softmax_backward(const Tensor& grad, const Tensor& y) {
  return map_rows(grad, y, "log_softmax_backward",
                  [](float* out, const float* g, const float* log_p, std::int64_t n) {
                    double total = 0.0;
                    for (std::int64_t i = 0; i < n; ++i)
                      total += g[i];
                    for (std::int64_t i = 0; i < n; ++i) {
                      out[i] = static_cast<float>(g[i] - std::exp(log_p[i]) * total);
                    }
                  });
}

}  // namespace tscope::engine::cpu
