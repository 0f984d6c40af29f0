// The selected span's outline and the flows that touch it, drawn as right-angled arrows: a
// vertical leg from the source row to the target row, then a horizontal leg to the target.

#include "tscope/gui/selection.h"

#include <algorithm>

#include "frame_parts.h"

namespace tscope::gui {

std::vector<trace::Flow> selection_flows(const trace::Trace& trace, trace::EventRef event) {
  std::vector<trace::Flow> touching;
  for (const trace::Flow& flow : trace.flows()) {
    if (flow.from == event || flow.to == event) touching.push_back(flow);
  }
  return touching;
}

std::optional<SpanPlace> span_place(const FrameRequest& request, trace::EventRef event) {
  if (event.kind != trace::EventKind::kSpan) return std::nullopt;
  const Lane* lane = request.layout->lane_of_track(event.track);
  if (lane == nullptr || lane->kind != LaneKind::kSpans) return std::nullopt;
  const trace::SpanColumns& spans = request.trace->track(event.track).spans();
  if (event.index >= spans.size()) return std::nullopt;
  const float y0 = request.area.screen_y(lane->row_top(spans.depth[event.index]));
  return SpanPlace{request.view.x_of(spans.start[event.index]),
                   request.view.x_of(spans.end(event.index)), y0, y0 + kSpanRowHeight - 1};
}

std::optional<trace::EventRef> find_span_named(const trace::Trace& trace, std::string_view name) {
  const auto id = trace.strings().find(name);
  if (!id) return std::nullopt;
  std::optional<trace::EventRef> earliest;
  trace::TimeNs earliest_start = 0;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const trace::SpanColumns& spans = trace.track(track).spans();
    const auto found = std::find(spans.name.begin(), spans.name.end(), *id);
    if (found == spans.name.end()) continue;
    const auto index = static_cast<std::uint32_t>(found - spans.name.begin());
    if (!earliest || spans.start[index] < earliest_start) {
      earliest = trace::EventRef{trace::EventKind::kSpan, track, index};
      earliest_start = spans.start[index];
    }
  }
  return earliest;
}

namespace detail {

namespace {

constexpr float kOutline = 2.0f;
constexpr float kFlowThickness = 2.0f;
constexpr float kArrowSize = 6.0f;

void draw_outline(const FrameRequest& request, const SpanPlace& place, TimelineFrame& frame) {
  const float x0 = clamped(request.view, place.x0) - kOutline;
  const float x1 = std::max(clamped(request.view, place.x1), x0 + 2 * kOutline + 1) + kOutline;
  const float y0 = place.y0 - kOutline;
  const float y1 = place.y1 + kOutline;
  frame.rects.push_back({x0, y0, x1, place.y0, kSelectionColor});
  frame.rects.push_back({x0, place.y1, x1, y1, kSelectionColor});
  frame.rects.push_back({x0, y0, x0 + kOutline, y1, kSelectionColor});
  frame.rects.push_back({x1 - kOutline, y0, x1, y1, kSelectionColor});
}

void draw_flow(const FrameRequest& request, const SpanPlace& from, const SpanPlace& to,
               TimelineFrame& frame) {
  const float lanes_top = request.area.lanes_top();
  const float bottom = request.area.bottom;
  const float x_from = clamped(request.view, from.x0);
  const float x_to = clamped(request.view, to.x0);
  const float y_from = (from.y0 + from.y1) / 2;
  const float y_to = (to.y0 + to.y1) / 2;
  const float leg_top = std::clamp(std::min(y_from, y_to), lanes_top, bottom);
  const float leg_bottom = std::clamp(std::max(y_from, y_to), lanes_top, bottom);
  frame.rects.push_back({x_from, leg_top, x_from + kFlowThickness, leg_bottom, kFlowColor});
  if (y_to < lanes_top || y_to > bottom) return;
  const float half = kFlowThickness / 2;
  frame.rects.push_back({std::min(x_from, x_to), y_to - half, std::max(x_from, x_to) + half,
                         y_to + half, kFlowColor});
  const float direction = x_to >= x_from ? 1.0f : -1.0f;
  frame.triangles.push_back({x_to, y_to, x_to - direction * kArrowSize, y_to - kArrowSize,
                             x_to - direction * kArrowSize, y_to + kArrowSize, kFlowColor});
}

}  // namespace

void draw_selection(const FrameRequest& request, TimelineFrame& frame) {
  if (request.selection == nullptr) return;
  if (const auto place = span_place(request, *request.selection)) {
    draw_outline(request, *place, frame);
  }
  if (request.selection_flows == nullptr) return;
  for (const trace::Flow& flow : *request.selection_flows) {
    const auto from = span_place(request, flow.from);
    const auto to = span_place(request, flow.to);
    if (from && to) draw_flow(request, *from, *to, frame);
  }
}

}  // namespace detail

}  // namespace tscope::gui
