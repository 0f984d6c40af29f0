#pragma once
// What one frame of the timeline draws, built without any window: rectangles, triangles and
// labels in screen coordinates, plus the boxes a click can hit. The ImGui renderer only copies
// these into a draw list, so a benchmark and tests can build and inspect frames headlessly.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/critical_path.h"
#include "tscope/gui/colors.h"
#include "tscope/gui/lane_layout.h"
#include "tscope/gui/time_view.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

// Spans narrower than this fold into their neighbours (Tracy's MinVisSize is 3 px too).
inline constexpr float kMinSpanPixels = 3.0f;
inline constexpr float kRulerHeight = 24.0f;

struct DrawRect {
  float x0, y0, x1, y1;
  Color color;
};

struct DrawTriangle {
  float x0, y0, x1, y1, x2, y2;
  Color color;
};

// A label clipped to [x, clip_right); its characters live in TimelineFrame::text_arena.
struct DrawText {
  float x, y, clip_right;
  Color color;
  std::uint32_t offset, length;
};

// Something a click can land on: one span or instant (count 1), or a folded run of `count` spans
// at one depth, or of instant markers too close to tell apart.
struct HitBox {
  float x0, y0, x1, y1;
  trace::EventRef first;  // the event, or the first of the run
  std::uint32_t count;
  TimeNs begin, end;  // the time the box covers
};

struct TimelineFrame {
  std::vector<DrawRect> rects;
  std::vector<DrawTriangle> triangles;
  std::vector<DrawText> texts;
  std::string text_arena;
  std::vector<HitBox> boxes;

  std::string_view text(const DrawText& label) const {
    return std::string_view(text_arena).substr(label.offset, label.length);
  }
  // Keeps capacity, so a viewer that builds every frame into one TimelineFrame stops allocating.
  void clear();
  void add_text(float x, float y, float clip_right, Color color, std::string_view text);
};

// The screen area of the timeline: the ruler on top, then lanes scrolled by `scroll`.
struct TimelineArea {
  float top = 0;
  float bottom = 0;
  float scroll = 0;

  float lanes_top() const { return top + kRulerHeight; }
  // Screen y of a y in lane-area coordinates.
  float screen_y(float lane_y) const { return lanes_top() - scroll + lane_y; }
};

struct FrameRequest {
  const trace::Trace* trace = nullptr;
  const LaneLayout* layout = nullptr;
  TimeView view{{0, 1}, 0, 1};
  TimelineArea area;
  // Time the ruler counts from, usually the trace's first event.
  TimeNs origin = 0;
  // The selected span, if any, and the flows that touch it (see selection_flows).
  const trace::EventRef* selection = nullptr;
  const std::vector<trace::Flow>* selection_flows = nullptr;
  // Stretches of the critical path to mark under their spans, in time order; none when null.
  const std::vector<analyzer::PathSegment>* critical_path = nullptr;
};

// Clears `frame` and fills it for `request`. Touches only what is visible: per lane and depth the
// visible spans are found by binary search and narrow runs folded, so the cost follows the
// screen's width, not the trace's size.
void build_timeline_frame(const FrameRequest& request, TimelineFrame& frame);

}  // namespace tscope::gui
