#pragma once
// What a click on the timeline lands on, read from the frame that was drawn, so the answer
// always matches what the user saw (a span, or a folded run to zoom into).

#include "tscope/gui/timeline_frame.h"

namespace tscope::gui {

// The box under (x, y), or nullptr. Later boxes win, as they are drawn on top.
const HitBox* box_at(const TimelineFrame& frame, float x, float y);

}  // namespace tscope::gui
