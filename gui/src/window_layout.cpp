#include "tscope/gui/window_layout.h"

#include <algorithm>

namespace tscope::gui {

WindowLayout layout_window(float width, float height) {
  // Narrow windows give the panels at most a third of the width.
  const float panel_width = std::min(kSidePanelWidth, width / 3);
  const float timeline_width = std::max(width - panel_width, 1.0f);
  WindowLayout layout;
  layout.toolbar = {0, 0, width, kToolbarHeight};
  layout.timeline = {0, kToolbarHeight, timeline_width, std::max(height - kToolbarHeight, 1.0f)};
  layout.side_panel = {timeline_width, kToolbarHeight, panel_width,
                       std::max(height - kToolbarHeight, 1.0f)};
  return layout;
}

}  // namespace tscope::gui
