#pragma once
// The text forms of the windows `tscope convert` cuts and `tscope record` captures: a time range
// "START:END" relative to a trace's start (seconds, or with a unit: 250ms, 1.5s, 800us, 20ns;
// either side may be empty for "from the start" or "to the end"), and a step range "A:B" (steps
// A to B inclusive, as numbered by the program: our engine's "step N", PyTorch's
// "ProfilerStep#N").

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "tscope/trace/capture_window.h"
#include "tscope/trace/trace.h"

namespace tscope::cli {

// A malformed range; its message names the text and the expected form.
class WindowSyntaxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimeRange {
  std::optional<trace::TimeNs> start;  // offsets from the trace's start
  std::optional<trace::TimeNs> end;
};

struct StepRange {
  std::int64_t first = 0;
  std::int64_t last = 0;  // inclusive
};

// "1.5", "250ms", "20ns": a duration in nanoseconds. Throws WindowSyntaxError.
trace::TimeNs parse_duration(std::string_view text);
TimeRange parse_time_range(std::string_view text);
StepRange parse_step_range(std::string_view text);

// The absolute window of `range` in `trace`.
trace::CaptureWindow window_in(const trace::Trace& trace, const TimeRange& range);
// The window from the start of step `range.first` to the end of step `range.last`: the spans
// named as steps on any track (steps of the range the trace lacks are skipped; a step repeated
// on several rows, as Kineto's GPU annotations do, widens nothing). Throws WindowSyntaxError
// naming the steps the trace has when it has none of the range.
trace::CaptureWindow window_of_steps(const trace::Trace& trace, const StepRange& range);
// The first span named `name` (earliest start on any track), as Nsight Systems' capture range
// takes the first time an NVTX range of that name opens until it closes. Throws
// WindowSyntaxError when the trace has no span of that name.
trace::CaptureWindow window_of_range(const trace::Trace& trace, std::string_view name);

}  // namespace tscope::cli
