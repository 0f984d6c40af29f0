#pragma once
// Time accounting over overlapping intervals: each instant is attributed to the highest-priority
// class active then, so the parts of a split never add up to more than the wall time.

#include <cstdint>
#include <span>
#include <vector>

#include "tscope/trace/records.h"

namespace tscope::analyzer {

struct ClassInterval {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  std::uint8_t priority = 0;  // 0 wins over 1, ...
};

// Exclusive time of each class (index = priority), within [window_start, window_end).
std::vector<trace::TimeNs> exclusive_time(std::span<const ClassInterval> intervals,
                                          std::size_t class_count, trace::TimeNs window_start,
                                          trace::TimeNs window_end);

}  // namespace tscope::analyzer
