#pragma once
// The range of times a trace holds: less than 2^62 ns (146 years) from the clock's zero either
// way, so that the difference of any two (a duration, a trace's length) fits TimeNs and no
// analysis overflows.
// TraceBuilder refuses times beyond; the Chrome reader skips events there like unreadable times.

#include "tscope/trace/records.h"

namespace tscope::trace {

inline constexpr TimeNs kMaxAbsTimeNs = (TimeNs{1} << 62) - 1;

}  // namespace tscope::trace
