// The time ruler across the top of the timeline.

#include "frame_parts.h"
#include "tscope/gui/ruler.h"

namespace tscope::gui::detail {

void draw_ruler(const FrameRequest& request, TimelineFrame& frame) {
  const TimeView& view = request.view;
  const float top = request.area.top;
  const float bottom = top + kRulerHeight;
  frame.rects.push_back({view.left(), top, view.right(), bottom, kRulerColor});
  const TimeNs step = major_tick_step(view);
  for (const RulerTick& tick : ruler_ticks(view, request.origin)) {
    const auto x = static_cast<float>(tick.x);
    const float tick_top = tick.major ? top + 2 : bottom - 6;
    frame.rects.push_back({x, tick_top, x + 1, bottom, kTickColor});
    if (tick.major) {
      frame.add_text(x + 3, top + 2, view.right(), kTextColor, format_time_label(tick.time, step));
    }
  }
}

}  // namespace tscope::gui::detail
