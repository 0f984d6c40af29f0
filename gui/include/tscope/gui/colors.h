#pragma once
// The viewer's palette: one colour per span category (copies by direction), and the colours of
// folded blocks, flows, selection and plots, packed the way Dear ImGui packs them.

#include <cstdint>

#include "tscope/trace/event_kinds.h"

namespace tscope::gui {

// 0xAABBGGRR, as IM_COL32 packs a colour, so draw lists pass it to ImGui unchanged.
using Color = std::uint32_t;

constexpr Color rgba(std::uint8_t red, std::uint8_t green, std::uint8_t blue,
                     std::uint8_t alpha = 255) {
  return static_cast<Color>(alpha) << 24 | static_cast<Color>(blue) << 16 |
         static_cast<Color>(green) << 8 | red;
}
constexpr std::uint8_t red_of(Color color) {
  return color & 0xff;
}
constexpr std::uint8_t green_of(Color color) {
  return (color >> 8) & 0xff;
}
constexpr std::uint8_t blue_of(Color color) {
  return (color >> 16) & 0xff;
}

inline constexpr Color kBackgroundColor = rgba(28, 30, 34);
inline constexpr Color kLaneHeaderColor = rgba(44, 47, 54);
inline constexpr Color kGroupHeaderColor = rgba(62, 58, 84);
inline constexpr Color kTextColor = rgba(230, 230, 230);
inline constexpr Color kSpanTextColor = rgba(16, 16, 16);
inline constexpr Color kRulerColor = rgba(60, 63, 70);
inline constexpr Color kTickColor = rgba(170, 170, 170);
// Folded runs of spans too narrow to draw one by one: a neutral grey, so they never read as a
// category.
inline constexpr Color kFoldedColor = rgba(128, 128, 140);
inline constexpr Color kFlowColor = rgba(255, 64, 200);
inline constexpr Color kSelectionColor = rgba(255, 255, 255);
// The bar under each stretch of the critical path.
inline constexpr Color kCriticalPathColor = rgba(255, 48, 48);
inline constexpr Color kPlotColor = rgba(70, 160, 230);
inline constexpr Color kPlotReservedColor = rgba(40, 80, 120);
// The memory panel's segments view: blocks allocated inside a reserved segment, and every other
// segment's band (the rest in kPlotReservedColor).
inline constexpr Color kSegmentAllocatedColor = rgba(230, 120, 60);
inline constexpr Color kSegmentAlternateColor = rgba(60, 110, 150);
inline constexpr Color kInstantColor = rgba(250, 210, 60);
inline constexpr Color kOomColor = rgba(255, 40, 40);

Color category_color(trace::Category category);
Color copy_color(trace::CopyDirection direction);

}  // namespace tscope::gui
