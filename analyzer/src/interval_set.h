#pragma once
// Unions of time intervals and the time two unions share: what the communication/compute overlap
// of a rank is computed from.

#include <vector>

#include "tscope/trace/records.h"

namespace tscope::analyzer {

struct TimeInterval {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
};

// Sorted, non-overlapping intervals covering the same time as `intervals` (empty ones dropped).
std::vector<TimeInterval> merge_intervals(std::vector<TimeInterval> intervals);
// `from` less the time `removed` covers; both merged.
std::vector<TimeInterval> subtract_intervals(const std::vector<TimeInterval>& from,
                                             const std::vector<TimeInterval>& removed);
// Time covered by both merged unions.
trace::TimeNs shared_time(const std::vector<TimeInterval>& a, const std::vector<TimeInterval>& b);
trace::TimeNs covered_time(const std::vector<TimeInterval>& merged);

}  // namespace tscope::analyzer
