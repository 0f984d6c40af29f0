#pragma once
// The capture window of `tscope record`: --delay, --duration, --steps, --capture-range nvtx:NAME
// and SIGUSR1 sent to `tscope record` (starting paused with --start-paused) decide which part of
// the run the trace keeps. The program records the whole run; when it has exited, the trace is cut
// to the window (trace_cut.h) and records it, so the analyzer's per-step figures cover only it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tscope/trace/capture_window.h"
#include "tscope/trace/trace.h"
#include "window_options.h"

namespace tscope::cli {

struct RecordWindowSettings {
  std::optional<trace::TimeNs> delay;     // after the program starts
  std::optional<trace::TimeNs> duration;  // after the window starts
  std::optional<StepRange> steps;
  std::optional<std::string> range_name;  // from --capture-range nvtx:NAME
  bool start_paused = false;

  bool any() const { return delay || duration || steps || range_name || start_paused; }
};

// Parses --capture-range's "nvtx:NAME" into NAME. Throws WindowSyntaxError.
std::string parse_capture_range(const std::string& text);

// Makes SIGUSR1 to this process toggle capture (noting the time, CLOCK_MONOTONIC) instead of
// ending it.
void install_capture_toggle();
// The times SIGUSR1 arrived since install_capture_toggle, in order.
std::vector<trace::TimeNs> capture_toggles();

// The window of a run that started at run_start and ended at run_end (CLOCK_MONOTONIC ns, the
// trace's clock) whose trace is `recorded`: the part captured between toggles (from the first
// start to the last stop; before any toggle, capture is on unless start_paused), after the delay,
// within the duration, and within the steps and the named range when asked. Throws
// WindowSyntaxError when the trace lacks the steps or range.
trace::CaptureWindow record_window(const trace::Trace& recorded,
                                   const RecordWindowSettings& settings, trace::TimeNs run_start,
                                   trace::TimeNs run_end,
                                   const std::vector<trace::TimeNs>& toggles);

// Cuts the trace at `path` to its window in place and returns the window; throws as
// record_window, or trace::IoError / FormatError.
trace::CaptureWindow cut_recording(const std::filesystem::path& path,
                                   const RecordWindowSettings& settings, trace::TimeNs run_start,
                                   trace::TimeNs run_end);

}  // namespace tscope::cli
