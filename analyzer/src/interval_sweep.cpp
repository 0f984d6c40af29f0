#include "interval_sweep.h"

#include <algorithm>

namespace tscope::analyzer {

std::vector<trace::TimeNs> exclusive_time(const std::vector<ClassInterval>& intervals,
                                          std::size_t class_count, trace::TimeNs window_start,
                                          trace::TimeNs window_end) {
  std::vector<trace::TimeNs> time(class_count, 0);
  if (intervals.empty() || window_end <= window_start) return time;

  // Starts and ends as (time, class); each side is usually in time order already (a track's
  // spans are sorted by start), so each is sorted only when it is not, and the two are merged.
  // Changes at one instant may come in any order: time is attributed only when it advances.
  using Boundary = std::pair<trace::TimeNs, std::uint8_t>;
  std::vector<Boundary> starts;
  std::vector<Boundary> ends;
  starts.reserve(intervals.size());
  ends.reserve(intervals.size());
  for (const ClassInterval& interval : intervals) {
    const trace::TimeNs start = std::max(interval.start, window_start);
    const trace::TimeNs end = std::min(interval.end, window_end);
    if (end <= start || interval.priority >= class_count) continue;
    starts.emplace_back(start, interval.priority);
    ends.emplace_back(end, interval.priority);
  }
  const auto by_time = [](const Boundary& a, const Boundary& b) { return a.first < b.first; };
  for (std::vector<Boundary>* side : {&starts, &ends}) {
    if (!std::is_sorted(side->begin(), side->end(), by_time))
      std::sort(side->begin(), side->end(), by_time);
  }

  std::vector<std::uint32_t> active(class_count, 0);
  trace::TimeNs previous = window_start;
  std::size_t next_start = 0;
  std::size_t next_end = 0;
  while (next_end < ends.size()) {
    // Ends go first at one instant, so that the counts never drop below zero.
    const bool is_start =
        next_start < starts.size() && starts[next_start].first < ends[next_end].first;
    const Boundary& boundary = is_start ? starts[next_start++] : ends[next_end++];
    if (boundary.first > previous) {
      for (std::size_t priority = 0; priority < class_count; ++priority) {
        if (active[priority] != 0) {
          time[priority] += boundary.first - previous;
          break;
        }
      }
      previous = boundary.first;
    }
    if (is_start) {
      ++active[boundary.second];
    } else {
      --active[boundary.second];
    }
  }
  return time;
}

}  // namespace tscope::analyzer
