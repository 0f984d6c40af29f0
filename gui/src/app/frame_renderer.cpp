// The only place timeline primitives meet ImGui: rectangles, triangles and clipped labels.

#include "viewer_ui.h"

namespace tscope::gui::app {

void render_frame(const TimelineFrame& frame, const ScreenRect& clip, ImDrawList& list) {
  list.PushClipRect(ImVec2(clip.x, clip.y), ImVec2(clip.right(), clip.bottom()), true);
  for (const DrawRect& rect : frame.rects) {
    list.AddRectFilled(ImVec2(rect.x0, rect.y0), ImVec2(rect.x1, rect.y1), rect.color);
  }
  for (const DrawTriangle& triangle : frame.triangles) {
    list.AddTriangleFilled(ImVec2(triangle.x0, triangle.y0), ImVec2(triangle.x1, triangle.y1),
                           ImVec2(triangle.x2, triangle.y2), triangle.color);
  }
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  for (const DrawText& label : frame.texts) {
    const std::string_view text = frame.text(label);
    const ImVec4 text_clip(label.x, label.y - 2, std::min(label.clip_right, clip.right()),
                           label.y + size + 2);
    list.AddText(font, size, ImVec2(label.x, label.y), label.color, text.data(),
                 text.data() + text.size(), 0.0f, &text_clip);
  }
  list.PopClipRect();
}

}  // namespace tscope::gui::app
