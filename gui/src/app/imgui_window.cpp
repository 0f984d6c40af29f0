#include "imgui_window.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <string>

#include "tscope/gui/colors.h"
#include "tscope/gui/viewer.h"

namespace tscope::gui::app {

namespace {

std::string last_glfw_error() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  return description != nullptr
             ? std::string(description) + " (GLFW error " + std::to_string(code) + ")"
             : "no GLFW error reported";
}

}  // namespace

ImGuiWindow::ImGuiWindow(const std::string& title, int width, int height, bool visible) {
  if (glfwInit() == GLFW_FALSE) {
    throw ViewerError(
        "cannot initialise GLFW (is DISPLAY set? run under xvfb-run for "
        "screenshots): " +
        last_glfw_error());
  }
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (window_ == nullptr) {
    const std::string error = last_glfw_error();
    glfwTerminate();
    throw ViewerError("cannot open an OpenGL 3 window: " + error);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 0;
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 130");
}

ImGuiWindow::~ImGuiWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool ImGuiWindow::should_close() const {
  return glfwWindowShouldClose(window_) != 0;
}

void ImGuiWindow::begin_frame(bool wait_for_events) {
  if (wait_for_events) {
    // Redraw at least every 100 ms for held keys, without spinning while idle.
    glfwWaitEventsTimeout(0.1);
  } else {
    glfwPollEvents();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ImGuiWindow::render() {
  ImGui::Render();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  glViewport(0, 0, static_cast<int>(size.x), static_cast<int>(size.y));
  glClearColor(red_of(kBackgroundColor) / 255.0f, green_of(kBackgroundColor) / 255.0f,
               blue_of(kBackgroundColor) / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void ImGuiWindow::present() {
  glfwSwapBuffers(window_);
}

}  // namespace tscope::gui::app
