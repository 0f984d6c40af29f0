#pragma once
// Block sizes and their running sums in int64, saturating: a trace can claim blocks of up to
// 2^64 - 1 bytes, and sums of a few such overflow.

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tscope::gui {

inline std::int64_t signed_bytes(std::uint64_t bytes) {
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(bytes, std::numeric_limits<std::int64_t>::max()));
}

inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

}  // namespace tscope::gui
