// The toolbar: fit all, zoom to selection, the step selector, search with next/previous, help.

#include <string>

#include "tscope/report/units.h"
#include "viewer_ui.h"

namespace tscope::gui::app {

namespace {

void draw_step_selector(TimelineSession& session) {
  const analyzer::StepSet& steps = session.steps();
  if (steps.whole_trace || steps.steps.empty()) return;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(180);
  if (ImGui::BeginCombo("##step", "Go to step")) {
    for (std::size_t index = 0; index < steps.steps.size(); ++index) {
      const analyzer::Step& step = steps.steps[index];
      const std::string label = step.name + "  (" + format_duration(step.end - step.start) + ")";
      if (ImGui::Selectable(label.c_str())) session.show_step(index);
    }
    ImGui::EndCombo();
  }
}

void draw_search(UiState& state, TimelineSession& session) {
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220);
  if (ImGui::InputTextWithHint("##search", "search span names", state.search_text,
                               sizeof state.search_text, ImGuiInputTextFlags_EnterReturnsTrue)) {
    if (session.search_query() != state.search_text) session.search(state.search_text);
    session.search_step(!ImGui::GetIO().KeyShift);
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##previous", ImGuiDir_Left)) session.search_step(false);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) session.search_step(true);
  if (!session.search_query().empty()) {
    ImGui::SameLine();
    const auto position = session.search_position();
    ImGui::Text("%s / %zu", position ? std::to_string(*position + 1).c_str() : "-",
                session.search_match_count());
  }
}

}  // namespace

void draw_toolbar(UiState& state, const ScreenRect& rect) {
  begin_pinned_window("toolbar", rect);
  if (state.session == nullptr) {
    ImGui::TextUnformatted(state.source.c_str());
    ImGui::End();
    return;
  }
  TimelineSession& session = *state.session;
  if (ImGui::Button("Fit all (F)")) session.fit_all();
  ImGui::SameLine();
  ImGui::BeginDisabled(!session.selection());
  if (ImGui::Button("Zoom to selection (Z)")) session.zoom_to_selection();
  ImGui::EndDisabled();
  draw_step_selector(session);
  draw_search(state, session);
  ImGui::SameLine();
  if (ImGui::Button("Help (H)")) state.help_visible = !state.help_visible;
  ImGui::SameLine();
  ImGui::TextDisabled("%s  |  %s visible", state.source.c_str(),
                      format_duration(session.view().range().length()).c_str());
  ImGui::End();
}

}  // namespace tscope::gui::app
