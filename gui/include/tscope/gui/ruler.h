#pragma once
// The time ruler's ticks: a 1-2-5 step chosen so labelled ticks sit about 100 px apart, labelled
// in the unit (ns, µs, ms, s) that suits the step.

#include <string>
#include <vector>

#include "tscope/gui/time_view.h"

namespace tscope::gui {

inline constexpr double kMajorTickSpacingPixels = 100.0;
inline constexpr int kMinorTicksPerMajor = 5;

struct RulerTick {
  double x = 0;
  TimeNs time = 0;  // from the origin
  bool major = false;
};

// The tick step in nanoseconds: the smallest 1, 2 or 5 times a power of ten that spans at least
// kMajorTickSpacingPixels.
TimeNs major_tick_step(const TimeView& view);
// Ticks inside the view, minor ones included, times counted from `origin`.
std::vector<RulerTick> ruler_ticks(const TimeView& view, TimeNs origin);
// "250 ns", "1.5 µs", "12 ms", "2.25 s": a time in the largest unit it reaches, with the decimals
// needed to show a change of `resolution` (format_duration in report/units.h gives three
// significant digits instead).
std::string format_time_label(TimeNs duration, TimeNs resolution);

}  // namespace tscope::gui
