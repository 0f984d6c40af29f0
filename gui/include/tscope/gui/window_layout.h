#pragma once
// Where the viewer's parts sit in its window: a toolbar across the top, the timeline below it on
// the left, a column of panels on the right. Screenshots and their tests use the same function.

namespace tscope::gui {

inline constexpr int kScreenshotWidth = 1600;
inline constexpr int kScreenshotHeight = 900;
inline constexpr float kToolbarHeight = 36.0f;
inline constexpr float kSidePanelWidth = 420.0f;

struct ScreenRect {
  float x = 0, y = 0, width = 0, height = 0;

  float right() const { return x + width; }
  float bottom() const { return y + height; }
  bool contains(float px, float py) const {
    return px >= x && px < right() && py >= y && py < bottom();
  }
};

struct WindowLayout {
  ScreenRect toolbar;
  ScreenRect timeline;
  ScreenRect side_panel;
};

WindowLayout layout_window(float width, float height);

}  // namespace tscope::gui
