#pragma once
// The log-normaliser of a softmax row, shared by the softmax kernels and the fused cross-entropy
// so both round alike.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace tscope::engine::cpu {

// Returns the row maximum and log(sum(exp(x - max))), the maximum subtracted first so exp never
// overflows.
inline std::pair<float, double> row_log_normaliser(const float* x, std::int64_t length) {
  float row_max = x[0];
  for (std::int64_t i = 1; i < length; ++i)
    row_max = std::max(row_max, x[i]);
  double total = 0.0;
  for (std::int64_t i = 0; i < length; ++i)
    total += std::exp(static_cast<double>(x[i] - row_max));
  return {row_max, std::log(total)};
}

}  // namespace tscope::engine::cpu
