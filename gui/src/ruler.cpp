#include "tscope/gui/ruler.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tscope::gui {

TimeNs major_tick_step(const TimeView& view) {
  const double wanted = view.ns_per_pixel() * kMajorTickSpacingPixels;
  for (TimeNs power = 1;; power *= 10) {
    for (const TimeNs multiple : {1, 2, 5}) {
      if (static_cast<double>(power * multiple) >= wanted) return power * multiple;
    }
    if (power > TimeNs{1} << 58) return power;
  }
}

std::vector<RulerTick> ruler_ticks(const TimeView& view, TimeNs origin) {
  const TimeNs major = major_tick_step(view);
  const TimeNs minor = std::max<TimeNs>(major / kMinorTicksPerMajor, 1);
  const TimeRange range = view.range();
  // First tick at or after the window's start, on a multiple of the minor step from the origin.
  const TimeNs from_origin = range.begin - origin;
  TimeNs tick = from_origin - (from_origin % minor + minor) % minor;
  if (tick < from_origin) tick += minor;
  const TimeNs to_end = range.end - origin;
  std::vector<RulerTick> ticks;
  for (; tick < to_end; tick += minor) {
    ticks.push_back({view.x_of(origin + tick), tick, tick % major == 0});
    // Stops before the step past the end, which near the end of the time range overflows.
    if (tick >= to_end - minor) break;
  }
  return ticks;
}

std::string format_time_label(TimeNs duration, TimeNs resolution) {
  struct Unit {
    TimeNs nanoseconds;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
  resolution = std::max<TimeNs>(std::abs(resolution), 1);
  const TimeNs magnitude = std::max(std::abs(duration), resolution);
  const Unit* unit = &kUnits[3];
  for (const Unit& candidate : kUnits) {
    if (candidate.nanoseconds <= magnitude) {
      unit = &candidate;
      break;
    }
  }
  // As many decimals as it takes to show a change of `resolution`.
  int decimals = 0;
  for (TimeNs shown = unit->nanoseconds; resolution % shown != 0 && decimals < 3; shown /= 10) {
    ++decimals;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.*f %s", decimals,
                static_cast<double>(duration) / static_cast<double>(unit->nanoseconds), unit->name);
  return text;
}

}  // namespace tscope::gui
