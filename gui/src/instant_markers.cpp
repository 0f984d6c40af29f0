// Instant events (marks, OOMs) as small triangles in their lane's header row; markers closer than
// one marker's width merge, so a burst of instants costs one triangle per few pixels.

#include <algorithm>

#include "frame_parts.h"

namespace tscope::gui::detail {

namespace {

constexpr float kMarkerHalfWidth = 5.0f;

bool is_out_of_memory(std::string_view name) {
  return name.find("OOM") != std::string_view::npos ||
         name.find("out of memory") != std::string_view::npos ||
         name.find("OutOfMemory") != std::string_view::npos;
}

}  // namespace

void draw_instant_markers(const FrameRequest& request, const Lane& lane, TimelineFrame& frame) {
  const trace::InstantColumns& instants = request.trace->track(lane.track).instants();
  if (instants.size() == 0) return;
  const TimeView& view = request.view;
  const float top = request.area.screen_y(lane.top);
  if (top < request.area.lanes_top()) return;
  const auto marker_ns = static_cast<TimeNs>(2 * kMarkerHalfWidth * view.ns_per_pixel()) + 1;
  auto at = std::lower_bound(instants.time.begin(), instants.time.end(),
                             view.range().begin - marker_ns / 2);
  while (at != instants.time.end() && *at < view.range().end + marker_ns / 2) {
    const auto index = static_cast<std::size_t>(at - instants.time.begin());
    const auto x = static_cast<float>(view.x_of(*at));
    const Color color =
        is_out_of_memory(request.trace->string(instants.name[index])) ? kOomColor : kInstantColor;
    frame.triangles.push_back({x - kMarkerHalfWidth, top + 3, x + kMarkerHalfWidth, top + 3, x,
                               top + kLaneHeaderHeight - 3, color});
    const auto next = std::lower_bound(at + 1, instants.time.end(), *at + marker_ns);
    frame.boxes.push_back(
        {x - kMarkerHalfWidth, top + 3, x + kMarkerHalfWidth, top + kLaneHeaderHeight - 3,
         trace::EventRef{trace::EventKind::kInstant, lane.track, static_cast<std::uint32_t>(index)},
         static_cast<std::uint32_t>(next - at), *at, *(next - 1) + 1});
    at = next;
  }
}

}  // namespace tscope::gui::detail
