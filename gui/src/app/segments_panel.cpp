// The caching allocator's segments over the visible range, under the memory panel's stack: each
// reserved segment a band as tall as its bytes, filled from its bottom as far as its blocks are
// allocated, so the unfilled rest is reserved but unallocated memory. Sampled once per pixel
// column only when the view or the width changes, and drawn as merged pixel runs, at most one per
// pixel row per column. Clicking a band lists that segment's blocks there and selects the op that
// made the largest.

#include <algorithm>
#include <string>

#include "tscope/gui/ruler.h"
#include "tscope/report/units.h"
#include "viewer_ui.h"

namespace tscope::gui::app {
namespace {

constexpr float kPlotHeight = 100;
constexpr std::size_t kListedBlocks = 20;

std::string bytes_text(std::uint64_t bytes) {
  return format_bytes(static_cast<double>(bytes));
}

void select_op_of(TimelineSession& session, const LiveBlock& block) {
  if (const auto op = MemoryTimeline::op_of(session.trace(), block)) {
    session.select(op);
    session.zoom_to_selection();
  }
}

}  // namespace

void draw_segments_section(UiState& state) {
  TimelineSession& session = *state.session;
  SegmentsViewState& view = state.segments;
  if (!view.timeline) view.timeline.emplace(session.trace());
  const SegmentTimeline& timeline = *view.timeline;
  ImGui::Separator();
  ImGui::TextUnformatted("Allocator segments");
  if (timeline.empty()) {
    ImGui::TextDisabled("No allocator segments or reserved totals in this trace.");
    return;
  }
  const float width = std::max(1.0f, ImGui::GetContentRegionAvail().x);
  const TimeRange range = session.view().range();
  const auto columns = static_cast<std::size_t>(width);
  if (view.columns.size() != columns || !(view.columns_range == range)) {
    view.columns = timeline.sample(range, columns);
    view.columns_range = range;
  }
  const SegmentColumn& last = view.columns.back();
  ImGui::TextWrapped("%s: reserved %s, allocated %s, reserved but unallocated %s",
                     timeline.has_segments() ? "segments" : "totals",
                     bytes_text(last.reserved).c_str(), bytes_text(last.allocated).c_str(),
                     bytes_text(last.reserved - std::min(last.reserved, last.allocated)).c_str());
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const bool clicked = ImGui::InvisibleButton("segments plot", ImVec2(width, kPlotHeight));
  ImDrawList& list = *ImGui::GetWindowDrawList();
  list.AddRectFilled(origin, ImVec2(origin.x + width, origin.y + kPlotHeight),
                     to_imgui(kBackgroundColor));
  const double scale =
      kPlotHeight / static_cast<double>(std::max<std::uint64_t>(1, timeline.peak_reserved()));
  const float bottom = origin.y + kPlotHeight;
  for (std::size_t x = 0; x < view.columns.size(); ++x) {
    const ColumnRuns runs = column_runs(view.columns[x], scale);
    const float left = origin.x + static_cast<float>(x);
    const auto draw = [&](const PixelRun& run, Color color) {
      list.AddRectFilled(ImVec2(left, bottom - run.top), ImVec2(left + 1, bottom - run.bottom),
                         to_imgui(color));
    };
    for (std::size_t band = 0; band < runs.reserved.size(); ++band)
      draw(runs.reserved[band], band % 2 == 0 ? kPlotReservedColor : kSegmentAlternateColor);
    for (const PixelRun& run : runs.allocated)
      draw(run, kSegmentAllocatedColor);
  }

  if (clicked && timeline.has_segments()) {
    // The band under the mouse: walk the clicked column's segments up from the bottom.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const auto x = std::min(view.columns.size() - 1,
                            static_cast<std::size_t>(std::max(0.0f, mouse.x - origin.x)));
    const SegmentColumn& column = view.columns[x];
    double height = bottom - mouse.y;
    for (const SegmentBand& band : column.bands) {
      height -= static_cast<double>(band.bytes) * scale;
      if (height > 0) continue;
      view.selected_segment = band.segment;
      view.blocks = timeline.blocks_at(session.trace(), band.segment, column.time);
      if (!view.blocks.empty()) select_op_of(session, view.blocks.front());
      break;
    }
  }
  if (!view.selected_segment) return;
  const AllocatorSegment& segment = timeline.segments()[*view.selected_segment];
  ImGui::Text("segment at 0x%llx, %s: %zu blocks allocated there:",
              static_cast<unsigned long long>(segment.address), bytes_text(segment.bytes).c_str(),
              view.blocks.size());
  const trace::Trace& trace = session.trace();
  for (std::size_t i = 0; i < std::min(kListedBlocks, view.blocks.size()); ++i) {
    const LiveBlock& block = view.blocks[i];
    const trace::MemoryColumns& memory = trace.track(block.event.track).memory();
    const std::string label = "+" +
                              bytes_text(memory.address[block.event.index] - segment.address) +
                              "  " + bytes_text(block.bytes) + "  " +
                              std::string(trace.string(memory.owner_op(block.event.index))) +
                              "##segment_block" + std::to_string(i);
    if (ImGui::Selectable(label.c_str())) select_op_of(session, block);
  }
}

}  // namespace tscope::gui::app
