// Every key and mouse action of the viewer, over the timeline; H or F1 toggles it.

#include "viewer_ui.h"

namespace tscope::gui::app {

namespace {

struct Binding {
  const char* input;
  const char* action;
};

constexpr Binding kBindings[] = {
    {"Mouse wheel", "zoom around the cursor"},
    {"Shift + mouse wheel", "scroll the lanes"},
    {"Left drag", "pan in time and scroll the lanes"},
    {"Left click",
     "select a span or instant; on a folded block or merged markers, zoom in; on empty space, "
     "deselect"},
    {"Double click", "select a span and zoom to it"},
    {"W / S", "zoom in / out (hold)"},
    {"A / D", "pan left / right (hold)"},
    {"Up / Down", "scroll the lanes"},
    {"F", "fit the whole trace"},
    {"Z", "zoom to the selection"},
    {"Esc", "clear the selection"},
    {"Enter in search", "find the next span whose name contains the text (Shift: previous)"},
    {"F3 / Shift + F3", "next / previous search match"},
    {"H or F1", "show or hide this help"},
    {"Findings: click", "zoom to the finding's evidence and select it"},
    {"Step selector", "zoom to one training step"},
};

}  // namespace

void draw_help_overlay(UiState& state) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x / 2, display.y / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.92f);
  if (ImGui::Begin("Help", &state.help_visible,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse |
                       ImGuiWindowFlags_NoSavedSettings) &&
      ImGui::BeginTable("bindings", 2, ImGuiTableFlags_RowBg)) {
    for (const Binding& binding : kBindings) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(binding.input);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(binding.action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace tscope::gui::app
