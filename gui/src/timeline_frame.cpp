#include "tscope/gui/timeline_frame.h"

#include <algorithm>

#include "frame_parts.h"

namespace tscope::gui {

void TimelineFrame::clear() {
  rects.clear();
  triangles.clear();
  texts.clear();
  text_arena.clear();
  boxes.clear();
}

void TimelineFrame::add_text(float x, float y, float clip_right, Color color,
                             std::string_view text) {
  texts.push_back({x, y, clip_right, color, static_cast<std::uint32_t>(text_arena.size()),
                   static_cast<std::uint32_t>(text.size())});
  text_arena.append(text);
}

namespace detail {

float clamped(const TimeView& view, double x) {
  return static_cast<float>(std::clamp(x, static_cast<double>(view.left()) - 2.0,
                                       static_cast<double>(view.right()) + 2.0));
}

}  // namespace detail

void build_timeline_frame(const FrameRequest& request, TimelineFrame& frame) {
  frame.clear();
  const TimeView& view = request.view;
  const TimelineArea& area = request.area;
  frame.rects.push_back({view.left(), area.top, view.right(), area.bottom, kBackgroundColor});
  for (const LaneGroup& group : request.layout->groups()) {
    const float top = area.screen_y(group.top);
    if (top + kLaneHeaderHeight <= area.lanes_top() || top >= area.bottom) continue;
    frame.rects.push_back(
        {view.left(), top, view.right(), top + kLaneHeaderHeight, kGroupHeaderColor});
    frame.add_text(view.left() + 4, top + 2, view.right(), kTextColor,
                   (group.collapsed ? "[+] " : "[-] ") + group.label);
  }
  for (const Lane& lane : request.layout->lanes()) {
    if (lane.hidden) continue;
    const float top = area.screen_y(lane.top);
    if (top + lane.height() <= area.lanes_top()) continue;
    if (top >= area.bottom) break;
    frame.rects.push_back(
        {view.left(), top, view.right(), top + kLaneHeaderHeight, kLaneHeaderColor});
    frame.add_text(view.left() + 4, top + 2, view.right(), kTextColor, lane.label);
    if (lane.kind == LaneKind::kSpans) {
      detail::draw_span_lane(request, lane, frame);
      detail::draw_instant_markers(request, lane, frame);
    } else {
      detail::draw_plot_lane(request, lane, frame);
    }
  }
  detail::draw_critical_path(request, frame);
  detail::draw_selection(request, frame);
  // The ruler last, so lanes scrolled under it stay hidden.
  detail::draw_ruler(request, frame);
}

}  // namespace tscope::gui
