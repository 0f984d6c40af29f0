#pragma once
// The parts build_timeline_frame assembles, one timeline feature per file.

#include "tscope/gui/timeline_frame.h"

namespace tscope::gui::detail {

// Screen x clamped just outside the timeline, so far-off times stay small finite floats.
float clamped(const TimeView& view, double x);
inline float clamped_x(const TimeView& view, TimeNs time) { return clamped(view, view.x_of(time)); }

void draw_ruler(const FrameRequest& request, TimelineFrame& frame);
void draw_span_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_instant_markers(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_plot_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame);
void draw_selection(const FrameRequest& request, TimelineFrame& frame);

}  // namespace tscope::gui::detail
