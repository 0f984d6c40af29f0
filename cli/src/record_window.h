#pragma once
// The capture window of `tscope record`: --delay, --duration, --steps, --capture-range nvtx:NAME
// and SIGUSR1 sent to `tscope record` (starting paused with --start-paused) decide which part of
// the run is captured. They reach the recorded program's session through its environment
// (environment.h), which applies them while the program runs, so nothing outside the window is
// recorded, and writes the window into the trace for the analyzer's per-step figures.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tscope/trace/records.h"
#include "window_options.h"

namespace tscope::cli {

struct RecordWindowSettings {
  std::optional<trace::TimeNs> delay;     // after the program starts
  std::optional<trace::TimeNs> duration;  // after the window opens
  std::optional<StepRange> steps;
  std::optional<std::string> range_name;  // from --capture-range nvtx:NAME
  bool start_paused = false;

  bool any() const { return delay || duration || steps || range_name || start_paused; }
};

// Parses --capture-range's "nvtx:NAME" into NAME. Throws WindowSyntaxError.
std::string parse_capture_range(const std::string& text);

// SIGUSR1 to this process writes a byte into a pipe whose read end the recorded program
// inherits; its session toggles capture on each byte (starting paused with --start-paused). A pipe
// rather than a signal forwarded to the program, which might not yet (or never) handle SIGUSR1 and
// would die of it. Returns the read end's descriptor, kept open across exec. Throws
// std::system_error.
int install_capture_toggle();

// The variables of the child's environment that carry the window ("NAME=VALUE"), with the delay
// counted from `run_start` (CLOCK_MONOTONIC ns) and the toggle pipe's read end (-1: none).
std::vector<std::string> window_environment(const RecordWindowSettings& settings,
                                            trace::TimeNs run_start, int toggle_descriptor);

}  // namespace tscope::cli
