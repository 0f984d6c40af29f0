#pragma once
// The parts build_timeline_frame assembles, one timeline feature per file.

#include <algorithm>
#include <functional>

#include "tscope/gui/timeline_frame.h"

namespace tscope::gui::detail {

// Screen x clamped just outside the timeline, so far-off times stay small finite floats.
float clamped(const TimeView& view, double x);
inline float clamped_x(const TimeView& view, TimeNs time) {
  return clamped(view, view.x_of(time));
}

// lower_bound by galloping from `first`: what a frame looks for next (the span a folded run ends
// on, the sample ending a pixel column) is usually a few entries ahead, so doubling steps stay in
// cache where a binary search over the rest of a 10M-event column would miss at every probe.
template <typename Iterator, typename Value, typename Less = std::less<>>
Iterator gallop_lower_bound(Iterator first, Iterator last, const Value& value, Less less = {}) {
  std::ptrdiff_t step = 1;
  Iterator low = first;
  while (last - low > step && less(*(low + step), value)) {
    low += step;
    step *= 2;
  }
  return std::lower_bound(low, last - low > step ? low + step + 1 : last, value, less);
}

void draw_ruler(const FrameRequest& request, TimelineFrame& frame);
void draw_span_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_instant_markers(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_plot_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_selection(const FrameRequest& request, TimelineFrame& frame);
void draw_critical_path(const FrameRequest& request, TimelineFrame& frame);

}  // namespace tscope::gui::detail
