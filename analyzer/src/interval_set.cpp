#include "interval_set.h"

#include <algorithm>

#include "trace_names.h"

namespace tscope::analyzer {

std::vector<TimeInterval> merge_intervals(std::vector<TimeInterval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const TimeInterval& a, const TimeInterval& b) { return a.start < b.start; });
  std::vector<TimeInterval> merged;
  for (const TimeInterval& interval : intervals) {
    if (interval.end <= interval.start) continue;
    if (!merged.empty() && interval.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, interval.end);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

std::vector<TimeInterval> subtract_intervals(const std::vector<TimeInterval>& from,
                                             const std::vector<TimeInterval>& removed) {
  std::vector<TimeInterval> rest;
  std::size_t cut = 0;
  for (TimeInterval piece : from) {
    while (cut < removed.size() && removed[cut].end <= piece.start)
      ++cut;
    for (std::size_t at = cut; at < removed.size() && removed[at].start < piece.end; ++at) {
      if (removed[at].start > piece.start) rest.push_back({piece.start, removed[at].start});
      piece.start = std::max(piece.start, removed[at].end);
    }
    if (piece.start < piece.end) rest.push_back(piece);
  }
  return rest;
}

TimeNs shared_time(const std::vector<TimeInterval>& a, const std::vector<TimeInterval>& b) {
  TimeNs shared = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    shared += std::max<TimeNs>(0, std::min(a[i].end, b[j].end) - std::max(a[i].start, b[j].start));
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return shared;
}

TimeNs covered_time(const std::vector<TimeInterval>& merged) {
  TimeNs total = 0;
  for (const TimeInterval& interval : merged)
    total += interval.end - interval.start;
  return total;
}

}  // namespace tscope::analyzer
