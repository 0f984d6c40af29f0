#include "interval_sweep.h"

#include <algorithm>
#include <functional>

namespace tscope::analyzer {

std::vector<trace::TimeNs> exclusive_time(std::span<const ClassInterval> intervals,
                                          std::size_t class_count, trace::TimeNs window_start,
                                          trace::TimeNs window_end) {
  std::vector<trace::TimeNs> time(class_count, 0);
  if (intervals.empty() || window_end <= window_start) return time;

  // Intervals are usually in start order already (a track's spans are sorted by start); clipping
  // to the window keeps that order. Only out-of-order input is copied and sorted.
  const auto by_start = [](const ClassInterval& a, const ClassInterval& b) {
    return a.start < b.start;
  };
  std::vector<ClassInterval> sorted;
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
    sorted.assign(intervals.begin(), intervals.end());
    std::sort(sorted.begin(), sorted.end(), by_start);
    intervals = sorted;
  }

  // A sweep over the starts, with the ends of the intervals still open in a min-heap: the open
  // ones are few (nesting depth, concurrent streams), so no sort of all the ends is needed. Ends
  // go first at one instant, so that the counts never drop below zero; changes at one instant
  // may come in any order, since time is attributed only when it advances.
  using Boundary = std::pair<trace::TimeNs, std::uint8_t>;
  std::vector<Boundary> open_ends;
  std::vector<std::uint32_t> active(class_count, 0);
  trace::TimeNs previous = window_start;
  const auto advance_to = [&](trace::TimeNs now) {
    if (now <= previous) return;
    for (std::size_t priority = 0; priority < class_count; ++priority) {
      if (active[priority] != 0) {
        time[priority] += now - previous;
        break;
      }
    }
    previous = now;
  };
  const auto close_until = [&](trace::TimeNs limit, bool inclusive) {
    while (!open_ends.empty() &&
           (open_ends.front().first < limit || (inclusive && open_ends.front().first == limit))) {
      const Boundary end = open_ends.front();
      std::pop_heap(open_ends.begin(), open_ends.end(), std::greater<>());
      open_ends.pop_back();
      advance_to(end.first);
      --active[end.second];
    }
  };
  for (const ClassInterval& interval : intervals) {
    const trace::TimeNs start = std::max(interval.start, window_start);
    const trace::TimeNs end = std::min(interval.end, window_end);
    if (end <= start || interval.priority >= class_count) continue;
    close_until(start, true);
    advance_to(start);
    ++active[interval.priority];
    open_ends.emplace_back(end, interval.priority);
    std::push_heap(open_ends.begin(), open_ends.end(), std::greater<>());
  }
  close_until(window_end, true);
  return time;
}

}  // namespace tscope::analyzer
