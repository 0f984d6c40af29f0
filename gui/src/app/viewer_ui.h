#pragma once
// The viewer's window for one frame: toolbar, timeline, side panels and help overlay, over one
// TimelineSession, or the load error that replaced it. One feature per file; this header is the
// list of them.

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "tscope/gui/colors.h"
#include "tscope/gui/memory_timeline.h"
#include "tscope/gui/segment_timeline.h"
#include "tscope/gui/timeline_frame.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/gui/window_layout.h"

namespace tscope::gui::app {

// The memory panel's series (built once per grouping) and its last sampling and click.
struct MemoryPanelState {
  bool open_at_start = false;
  int grouping = 0;  // a MemoryGrouping
  std::optional<MemoryTimeline> timeline;
  std::vector<MemoryColumn> columns;
  TimeRange columns_range;
  std::vector<LiveBlock> blocks;  // the clicked band's allocations
  std::size_t selected_group = 0;
};

// The segments view's series (built when the memory panel first opens) and its last sampling and
// click.
struct SegmentsViewState {
  std::optional<SegmentTimeline> timeline;
  std::vector<SegmentColumn> columns;
  TimeRange columns_range;
  std::vector<LiveBlock> blocks;  // the clicked segment's blocks
  std::optional<std::uint32_t> selected_segment;
};

struct UiState {
  std::string source;
  TimelineSession* session = nullptr;  // null when the trace failed to load
  std::string load_error;
  std::string cross_rank_error;
  bool help_visible = false;
  char search_text[256] = {};
  MemoryPanelState memory;
  SegmentsViewState segments;
};

void draw_viewer(UiState& state);

void draw_toolbar(UiState& state, const ScreenRect& rect);
// Mouse and keyboard navigation over the timeline, then the frame itself.
void draw_timeline(UiState& state, const ScreenRect& rect);
void draw_side_panel(UiState& state, const ScreenRect& rect);
void draw_details_section(TimelineSession& session);
// `cross_rank_error`: why merged ranks have no multi-rank findings (empty for one trace).
void draw_findings_section(TimelineSession& session, const std::string& cross_rank_error);
void draw_statistics_section(TimelineSession& session);
void draw_memory_section(UiState& state);
// The allocator's segments under the memory panel's stack, when the trace records them.
void draw_segments_section(UiState& state);
void draw_help_overlay(UiState& state);

// Copies a built frame into an ImGui draw list, clipped to `clip`.
void render_frame(const TimelineFrame& frame, const ScreenRect& clip, ImDrawList& list);

inline ImU32 to_imgui(Color color) {
  return IM_COL32(red_of(color), green_of(color), blue_of(color), 255);
}

// A window pinned to `rect` with no title bar, resizing or moving.
bool begin_pinned_window(const char* name, const ScreenRect& rect, ImGuiWindowFlags extra = 0);

}  // namespace tscope::gui::app
