// Counter and memory lanes as area plots, one column per pixel. A column shows the largest value
// in effect during its time; columns holding more than kExactSamples samples look at an even
// spread of that many, so a frame stays bounded by the screen width at any trace size.

#include <algorithm>
#include <cmath>
#include <span>

#include "frame_parts.h"

namespace tscope::gui::detail {

namespace {

constexpr std::size_t kExactSamples = 32;

// `value_at(i)` is the plotted value of sample i.
template <typename ValueAt>
void draw_area(const FrameRequest& request, const Lane& lane, const trace::TimeColumn& times,
               ValueAt value_at, Color color, TimelineFrame& frame) {
  if (times.empty() || lane.plot_max <= 0) return;
  const TimeView& view = request.view;
  const float baseline = request.area.screen_y(lane.row_top(0)) + kPlotHeight - 1;
  const float scale = (kPlotHeight - 2) / static_cast<float>(lane.plot_max);
  float run_left = view.left();
  float run_top = baseline;
  const auto flush = [&](float right) {
    if (run_top < baseline) frame.rects.push_back({run_left, run_top, right, baseline, color});
  };
  // First sample after the current column's start; the one before it is in effect there.
  auto after = std::upper_bound(times.begin(), times.end(), view.range().begin);
  const auto columns = static_cast<int>(std::ceil(view.width()));
  for (int column = 0; column < columns; ++column) {
    const float x = view.left() + static_cast<float>(column);
    const auto stop = gallop_lower_bound(after, times.end(), view.time_at(x + 1.0));
    const auto first = after == times.begin() ? after : after - 1;
    const auto count = static_cast<std::size_t>(stop - first);
    const std::size_t stride = std::max<std::size_t>(1, count / kExactSamples);
    const auto offset = static_cast<std::size_t>(first - times.begin());
    double most = 0;
    for (std::size_t i = 0; i < count; i += stride) {
      most = std::max(most, static_cast<double>(value_at(offset + i)));
    }
    const float top = baseline - static_cast<float>(most) * scale;
    if (top != run_top) {
      flush(x);
      run_left = x;
      run_top = top;
    }
    after = stop;
  }
  flush(view.right());
}

}  // namespace

void draw_plot_lane(const FrameRequest& request, const Lane& lane, TimelineFrame& frame) {
  const float top = request.area.screen_y(lane.row_top(0));
  if (top + kPlotHeight <= request.area.lanes_top() || top >= request.area.bottom) return;
  const trace::Track& track = request.trace->track(lane.track);
  if (lane.kind == LaneKind::kMemory) {
    const trace::MemoryColumns& memory = track.memory();
    draw_area(
        request, lane, memory.time, [&](std::size_t event) { return memory.total_reserved(event); },
        kPlotReservedColor, frame);
    if (lane.replayed_allocated.empty()) {
      draw_area(
          request, lane, memory.time,
          [&](std::size_t event) { return memory.total_allocated[event]; }, kPlotColor, frame);
    } else {
      draw_area(
          request, lane, memory.time,
          [&](std::size_t event) { return lane.replayed_allocated[event]; }, kPlotColor, frame);
    }
  } else {
    const trace::CounterColumns& counters = track.counters();
    draw_area(
        request, lane, counters.time, [&](std::size_t sample) { return counters.value[sample]; },
        kPlotColor, frame);
  }
}

}  // namespace tscope::gui::detail
