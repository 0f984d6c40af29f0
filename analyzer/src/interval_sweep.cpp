#include "interval_sweep.h"

#include <algorithm>

namespace tscope::analyzer {

std::vector<trace::TimeNs> exclusive_time(std::vector<ClassInterval>& intervals,
                                          std::size_t class_count, trace::TimeNs window_start,
                                          trace::TimeNs window_end) {
  std::vector<trace::TimeNs> time(class_count, 0);
  if (intervals.empty() || window_end <= window_start) return time;

  // Boundaries as (time, +/-(class + 1)); ends sort before starts at the same time.
  std::vector<std::pair<trace::TimeNs, int>> boundaries;
  boundaries.reserve(intervals.size() * 2);
  for (const ClassInterval& interval : intervals) {
    const trace::TimeNs start = std::max(interval.start, window_start);
    const trace::TimeNs end = std::min(interval.end, window_end);
    if (end <= start || interval.priority >= class_count) continue;
    boundaries.emplace_back(start, interval.priority + 1);
    boundaries.emplace_back(end, -(interval.priority + 1));
  }
  std::sort(boundaries.begin(), boundaries.end());

  std::vector<std::uint32_t> active(class_count, 0);
  trace::TimeNs previous = window_start;
  for (const auto& [at, change] : boundaries) {
    if (at > previous) {
      for (std::size_t priority = 0; priority < class_count; ++priority) {
        if (active[priority] != 0) {
          time[priority] += at - previous;
          break;
        }
      }
      previous = at;
    }
    if (change > 0) {
      ++active[static_cast<std::size_t>(change - 1)];
    } else {
      --active[static_cast<std::size_t>(-change - 1)];
    }
  }
  return time;
}

}  // namespace tscope::analyzer
