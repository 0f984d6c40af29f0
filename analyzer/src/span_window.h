#pragma once
// Visits the spans of one track that overlap a time window, using the track's start-sorted
// columns and the longest span of interest so that no per-window scan of the whole track is needed.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "event_classes.h"
#include "tscope/trace/time_range.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// Longest span of `track` accepted by `accept(index)`.
template <typename Accept>
trace::TimeNs longest_span(const trace::Track& track, Accept&& accept) {
  const trace::SpanColumns& spans = track.spans();
  trace::TimeNs longest = 0;
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (accept(i)) longest = std::max(longest, spans.end(i) - spans.start[i]);
  }
  return longest;
}

// Calls visit(index) for every span that may overlap [start, end): those starting within
// `longest` before `start`, up to `end`. The caller clips.
template <typename Visit>
void for_spans_in_window(const trace::Track& track, trace::TimeNs start, trace::TimeNs end,
                         trace::TimeNs longest, Visit&& visit) {
  const trace::SpanColumns& spans = track.spans();
  // No span starts before the time range a trace holds; stopping there keeps `start - longest`
  // from overflowing when a span lasts nearly all of it.
  const trace::TimeNs earliest = start - std::min(longest, start + trace::kMaxAbsTimeNs);
  const auto first = std::lower_bound(spans.start.begin(), spans.start.end(), earliest);
  for (auto at = first; at != spans.start.end() && *at < end; ++at) {
    const auto index = static_cast<std::uint32_t>(at - spans.start.begin());
    if (spans.end(index) > start) visit(index);
  }
}

// A track and its longest span of interest, for windowed visits.
struct TrackWindow {
  std::uint32_t track = 0;
  trace::TimeNs longest = 0;
};

}  // namespace tscope::analyzer
