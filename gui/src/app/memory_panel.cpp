// Live bytes over the visible range, stacked by owner op, scope or category (switchable), with
// the peak and the first out-of-memory event marked. The series is built once per grouping and
// sampled once per pixel column only when the view or the panel's width changes; clicking a band
// lists its live allocations there and selects the op that made the largest.

#include <algorithm>
#include <array>
#include <string>

#include "tscope/gui/colors.h"
#include "tscope/report/units.h"
#include "viewer_ui.h"

namespace tscope::gui::app {
namespace {

constexpr float kPlotHeight = 140;
constexpr std::size_t kListedBlocks = 20;
// One colour per shown group, then grey for "other".
constexpr std::array<Color, MemoryTimeline::kShownGroups + 1> kGroupColors{
    kPlotColor,         rgba(240, 140, 50),  rgba(90, 190, 110),
    rgba(200, 90, 200), rgba(230, 200, 70),  rgba(90, 200, 210),
    rgba(220, 90, 90),  rgba(160, 130, 230), rgba(120, 120, 130)};

const MemoryTimeline& timeline_for(MemoryPanelState& panel, const trace::Trace& trace) {
  const auto grouping = static_cast<MemoryGrouping>(panel.grouping);
  if (!panel.timeline || panel.timeline->grouping() != grouping) {
    panel.timeline.emplace(trace, grouping);
    panel.columns.clear();
    panel.blocks.clear();
  }
  return *panel.timeline;
}

}  // namespace

void draw_memory_section(UiState& state) {
  TimelineSession& session = *state.session;
  MemoryPanelState& panel = state.memory;
  ImGui::Combo("group by", &panel.grouping, "owner op\0scope\0category\0");
  const MemoryTimeline& timeline = timeline_for(panel, session.trace());
  if (timeline.empty()) {
    ImGui::TextDisabled("No memory events in this trace.");
    return;
  }
  ImGui::Text("peak %s at %s", format_bytes(static_cast<double>(timeline.peak_bytes())).c_str(),
              format_duration(timeline.peak_time() - session.origin()).c_str());
  if (timeline.oom_time()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1, 0.2f, 0.2f, 1), "OOM at %s",
                       format_duration(*timeline.oom_time() - session.origin()).c_str());
  }

  const float width = std::max(1.0f, ImGui::GetContentRegionAvail().x);
  const TimeRange range = session.view().range();
  const auto columns = static_cast<std::size_t>(width);
  if (panel.columns.size() != columns || !(panel.columns_range == range)) {
    panel.columns = timeline.sample(range, columns);
    panel.columns_range = range;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const bool clicked = ImGui::InvisibleButton("memory plot", ImVec2(width, kPlotHeight));
  ImDrawList& list = *ImGui::GetWindowDrawList();
  list.AddRectFilled(origin, ImVec2(origin.x + width, origin.y + kPlotHeight),
                     to_imgui(kBackgroundColor));
  const double scale =
      kPlotHeight / static_cast<double>(std::max<std::uint64_t>(1, timeline.peak_bytes()));
  const float bottom = origin.y + kPlotHeight;
  for (std::size_t x = 0; x < panel.columns.size(); ++x) {
    float y = bottom;
    const MemoryColumn& column = panel.columns[x];
    for (std::size_t group = 0; group < column.by_group.size(); ++group) {
      const float height = static_cast<float>(static_cast<double>(column.by_group[group]) * scale);
      if (height <= 0) continue;
      list.AddRectFilled(ImVec2(origin.x + static_cast<float>(x), y - height),
                         ImVec2(origin.x + static_cast<float>(x) + 1, y),
                         to_imgui(kGroupColors[group]));
      y -= height;
    }
  }
  const auto mark = [&](TimeNs time, Color color) {
    if (time < range.begin || time >= range.end) return;
    const float x = origin.x + static_cast<float>(static_cast<double>(time - range.begin) /
                                                  static_cast<double>(range.length()) * width);
    list.AddLine(ImVec2(x, origin.y), ImVec2(x, bottom), to_imgui(color), 2);
  };
  mark(timeline.peak_time(), kSelectionColor);
  if (timeline.oom_time()) mark(*timeline.oom_time(), kOomColor);

  if (clicked && !panel.columns.empty()) {
    // The band under the mouse: walk the clicked column's stack up from the bottom.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const auto x = std::min(panel.columns.size() - 1,
                            static_cast<std::size_t>(std::max(0.0f, mouse.x - origin.x)));
    const MemoryColumn& column = panel.columns[x];
    double height = bottom - mouse.y;
    for (std::size_t group = 0; group < column.by_group.size(); ++group) {
      height -= static_cast<double>(column.by_group[group]) * scale;
      if (height > 0) continue;
      panel.blocks = timeline.blocks_at(session.trace(), column.time, group);
      panel.selected_group = group;
      if (!panel.blocks.empty()) {
        if (const auto op = MemoryTimeline::op_of(session.trace(), panel.blocks.front())) {
          session.select(op);
          session.zoom_to_selection();
        }
      }
      break;
    }
  }

  for (std::size_t group = 0; group < timeline.groups().size(); ++group) {
    const Color color = kGroupColors[group];
    ImGui::TextColored(
        ImVec4(red_of(color) / 255.0f, green_of(color) / 255.0f, blue_of(color) / 255.0f, 1), "%s",
        timeline.groups()[group].c_str());
    if (group + 1 < timeline.groups().size()) ImGui::SameLine();
  }
  if (panel.blocks.empty()) return;
  ImGui::Text("%zu allocations of %s alive there:", panel.blocks.size(),
              timeline.groups()[panel.selected_group].c_str());
  const trace::Trace& trace = session.trace();
  for (std::size_t i = 0; i < std::min(kListedBlocks, panel.blocks.size()); ++i) {
    const LiveBlock& block = panel.blocks[i];
    const trace::MemoryColumns& memory = trace.track(block.event.track).memory();
    const std::string label = format_bytes(static_cast<double>(block.bytes)) + "  " +
                              std::string(trace.string(memory.scope(block.event.index))) + " / " +
                              std::string(trace.string(memory.owner_op(block.event.index))) +
                              "##block" + std::to_string(i);
    if (ImGui::Selectable(label.c_str())) {
      if (const auto op = MemoryTimeline::op_of(trace, block)) {
        session.select(op);
        session.zoom_to_selection();
      }
    }
  }
}

}  // namespace tscope::gui::app
