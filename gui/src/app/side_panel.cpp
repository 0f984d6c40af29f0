// The right-hand column: selection details, findings, statistics and memory, each a collapsible
// section.

#include "viewer_ui.h"

namespace tscope::gui::app {

void draw_side_panel(UiState& state, const ScreenRect& rect) {
  begin_pinned_window("panels", rect);
  if (state.session == nullptr) {
    ImGui::TextWrapped("No trace loaded.");
    ImGui::End();
    return;
  }
  if (ImGui::CollapsingHeader("Selection", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_details_section(*state.session);
  }
  if (ImGui::CollapsingHeader("Findings", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_findings_section(*state.session, state.cross_rank_error);
  }
  if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_statistics_section(*state.session);
  }
  // Closed at first unless asked for: its series is built when it is first opened.
  if (state.memory.open_at_start) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (ImGui::CollapsingHeader("Memory")) {
    draw_memory_section(state);
    draw_segments_section(state);
  }
  ImGui::End();
}

}  // namespace tscope::gui::app
