#include "viewer_ui.h"

namespace tscope::gui::app {

bool begin_pinned_window(const char* name, const ScreenRect& rect, ImGuiWindowFlags extra) {
  ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
  ImGui::SetNextWindowSize(ImVec2(rect.width, rect.height));
  return ImGui::Begin(name, nullptr,
                      ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize |
                          ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                          ImGuiWindowFlags_NoBringToFrontOnFocus |
                          ImGuiWindowFlags_NoSavedSettings | extra);
}

void draw_viewer(UiState& state) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const WindowLayout layout = layout_window(display.x, display.y);
  draw_toolbar(state, layout.toolbar);
  draw_timeline(state, layout.timeline);
  draw_side_panel(state, layout.side_panel);
  if (state.help_visible) draw_help_overlay(state);
}

}  // namespace tscope::gui::app
