#pragma once
// The time window a trace covers on purpose: what `tscope record` captured (after --delay, within
// --duration, --steps or --capture-range, or between SIGUSR1 signals) or what `tscope convert
// --range/--steps` cut. Kept in the trace's metadata, so every format carries it, and read by the
// analyzer, which reports per-step figures only for the steps inside it.

#include <optional>
#include <string_view>

#include "tscope/trace/records.h"
#include "tscope/trace/trace_metadata.h"

namespace tscope::trace {

struct CaptureWindow {
  TimeNs begin = 0;
  TimeNs end = 0;

  bool contains(TimeNs start, TimeNs finish) const { return start >= begin && finish <= end; }
};

inline constexpr std::string_view kCaptureBeginKey = "capture_window_begin_ns";
inline constexpr std::string_view kCaptureEndKey = "capture_window_end_ns";

// The window the metadata records, or nullopt when the trace covers the whole run (or the values
// do not parse, which a hand-edited file might do).
std::optional<CaptureWindow> capture_window(const TraceMetadata& metadata);
void set_capture_window(TraceMetadata& metadata, const CaptureWindow& window);

}  // namespace tscope::trace
