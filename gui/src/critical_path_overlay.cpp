// The critical path on the timeline: a red bar along the bottom of each span row for the time
// the step's path spends in that span. Only the visible stretches are visited (binary search on
// their time order), and stretches that meet on one row within a pixel are drawn as one bar, so
// a zoomed-out view of a long run costs its width, not the path's length.

#include <algorithm>

#include "frame_parts.h"
#include "tscope/gui/selection.h"

namespace tscope::gui::detail {

namespace {

constexpr float kBarHeight = 3.0f;

}  // namespace

void draw_critical_path(const FrameRequest& request, TimelineFrame& frame) {
  if (request.critical_path == nullptr) return;
  const std::vector<analyzer::PathSegment>& segments = *request.critical_path;
  const TimeRange range = request.view.range();
  auto at =
      std::partition_point(segments.begin(), segments.end(),
                           [&](const analyzer::PathSegment& s) { return s.end <= range.begin; });
  bool pending = false;
  DrawRect bar{};
  for (; at != segments.end() && at->start < range.end; ++at) {
    if (!at->has_event) continue;
    const auto place = span_place(request, at->event);
    if (!place || place->y1 < request.area.lanes_top() || place->y0 > request.area.bottom) continue;
    const float x0 = clamped_x(request.view, at->start);
    const float x1 = std::max(clamped_x(request.view, at->end), x0 + 1);
    const float y0 = place->y1 - kBarHeight;
    if (pending && bar.y0 == y0 && x0 <= bar.x1 + 1) {
      bar.x1 = std::max(bar.x1, x1);
      continue;
    }
    if (pending) frame.rects.push_back(bar);
    bar = {x0, y0, x1, place->y1, kCriticalPathColor};
    pending = true;
  }
  if (pending) frame.rects.push_back(bar);
}

}  // namespace tscope::gui::detail
