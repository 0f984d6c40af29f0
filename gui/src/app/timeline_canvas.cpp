// The timeline: wheel zoom around the cursor, drag to pan, click to select (or to zoom into a
// folded run), double-click to zoom to a span, W/A/S/D as in Perfetto and chrome://tracing, then
// the frame built for the resulting view.

#include <GLFW/glfw3.h>

#include <cmath>

#include "tscope/gui/colors.h"
#include "viewer_ui.h"

namespace tscope::gui::app {

namespace {

// Per wheel notch and per second of a held W/S: the factors Perfetto's zoom feels like.
constexpr double kWheelZoom = 0.8;
constexpr double kKeyZoomPerSecond = 0.15;
constexpr double kKeyPanScreensPerSecond = 1.0;
constexpr float kWheelScrollPixels = 40.0f;
constexpr float kClickSlopPixels = 3.0f;

void handle_keys(UiState& state, TimelineSession& session, const ScreenRect& rect) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  const double anchor =
      rect.contains(io.MousePos.x, io.MousePos.y) ? io.MousePos.x : rect.x + rect.width / 2.0;
  const double seconds = io.DeltaTime;
  if (ImGui::IsKeyDown(GLFW_KEY_W))
    session.zoom_around(anchor, std::pow(kKeyZoomPerSecond, seconds));
  if (ImGui::IsKeyDown(GLFW_KEY_S))
    session.zoom_around(anchor, std::pow(1 / kKeyZoomPerSecond, seconds));
  const double pan = rect.width * kKeyPanScreensPerSecond * seconds;
  if (ImGui::IsKeyDown(GLFW_KEY_A)) session.pan(pan, 0);
  if (ImGui::IsKeyDown(GLFW_KEY_D)) session.pan(-pan, 0);
  if (ImGui::IsKeyDown(GLFW_KEY_UP))
    session.pan(0, kWheelScrollPixels * 10 * static_cast<float>(seconds));
  if (ImGui::IsKeyDown(GLFW_KEY_DOWN))
    session.pan(0, -kWheelScrollPixels * 10 * static_cast<float>(seconds));
  if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) session.fit_all();
  if (ImGui::IsKeyPressed(GLFW_KEY_Z, false)) session.zoom_to_selection();
  if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) session.select(std::nullopt);
  if (ImGui::IsKeyPressed(GLFW_KEY_F3, false)) session.search_step(!io.KeyShift);
  if (ImGui::IsKeyPressed(GLFW_KEY_H, false) || ImGui::IsKeyPressed(GLFW_KEY_F1, false)) {
    state.help_visible = !state.help_visible;
  }
}

void handle_mouse(TimelineSession& session) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!ImGui::IsWindowHovered()) return;
  if (io.MouseWheel != 0) {
    if (io.KeyShift) {
      session.pan(0, io.MouseWheel * kWheelScrollPixels);
    } else {
      session.zoom_around(io.MousePos.x, std::pow(kWheelZoom, io.MouseWheel));
    }
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, kClickSlopPixels)) {
    session.pan(io.MouseDelta.x, io.MouseDelta.y);
  }
  if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    session.click(io.MousePos.x, io.MousePos.y);
    session.zoom_to_selection();
  } else if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
             io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] <
                 kClickSlopPixels * kClickSlopPixels) {
    session.click(io.MousePos.x, io.MousePos.y);
  }
}

}  // namespace

void draw_timeline(UiState& state, const ScreenRect& rect) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  begin_pinned_window("timeline", rect,
                      ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoScrollbar |
                          ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  ImDrawList& list = *ImGui::GetWindowDrawList();
  if (state.session == nullptr) {
    list.AddRectFilled(ImVec2(rect.x, rect.y), ImVec2(rect.right(), rect.bottom()),
                       kBackgroundColor);
    const std::string message = "Cannot open " + state.source + ":\n" + state.load_error;
    list.AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(rect.x + 24, rect.y + 24),
                 kOomColor, message.c_str(), nullptr, rect.width - 48);
    ImGui::End();
    return;
  }
  TimelineSession& session = *state.session;
  session.set_screen_rect(rect);
  handle_keys(state, session, rect);
  handle_mouse(session);
  render_frame(session.build_frame(), rect, list);
  ImGui::End();
}

}  // namespace tscope::gui::app
