#pragma once
// A GLFW window with an OpenGL 3 context and a Dear ImGui context on it, set up and torn down
// together; hidden for offscreen screenshots.

#include <string>

struct GLFWwindow;

namespace tscope::gui::app {

class ImGuiWindow {
 public:
  ImGuiWindow(const std::string& title, int width, int height, bool visible);
  ~ImGuiWindow();
  ImGuiWindow(const ImGuiWindow&) = delete;
  ImGuiWindow& operator=(const ImGuiWindow&) = delete;

  bool should_close() const;
  // Polls input (waiting briefly when nothing happens) and starts an ImGui frame.
  void begin_frame(bool wait_for_events);
  // Renders the ImGui frame into the framebuffer bound now.
  void render();
  void present();

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace tscope::gui::app
