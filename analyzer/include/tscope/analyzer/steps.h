#pragma once
// Training steps of a trace: our "step N" ranges, Kineto's "ProfilerStep#N", or the whole trace as
// one step when it has neither. Every per-step figure in a report is relative to these. A trace
// that records a capture window (trace/capture_window.h) counts only the steps wholly inside it
// (the window itself is the one step when none is).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::analyzer {

struct Step {
  std::string name;
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  std::optional<trace::EventRef> span;  // absent for the whole-trace step
};

struct StepSet {
  std::vector<Step> steps;                // sorted by start, non-overlapping
  std::uint32_t track = trace::kNoIndex;  // the host thread the step ranges are on
  bool whole_trace = false;

  double total_ns() const;
  double mean_ns() const;
  double min_ns() const;
  double max_ns() const;
  double stddev_ns() const;
  // Index of the step containing `time`, or steps.size() when none does.
  std::size_t step_at(trace::TimeNs time) const;
};

// The step ranges of the host thread with the most of them (other threads may repeat them, as
// Kineto's GPU annotation rows do). `name_filter` is a regular expression (report/name_regex.h)
// found in the names of the steps kept; throws AnalyzerError when it is invalid or matches no step.
StepSet find_steps(const trace::Trace& trace, const std::optional<std::string>& name_filter = {});

}  // namespace tscope::analyzer
