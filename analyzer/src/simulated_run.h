#pragma once
// A what-if's simulated run as a trace that every command opens like a recorded one: the spans that
// start in each replayed step, at their replayed times, the steps laid back to back from the first
// one's measured start, and the flows between the spans kept. Instants, counters and memory events
// are not replayed and are left out; the metadata names the edits.

#include <cstdint>
#include <span>
#include <vector>

#include "step_replay.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::analyzer {

class SimulatedRun {
 public:
  explicit SimulatedRun(const trace::Trace& trace);

  // Adds the spans that start in `step`, at the times of `replay`'s last replay, which predicted
  // the step to take `predicted_ns`.
  void add_step(const Step& step, const StepReplay& replay, double predicted_ns);
  trace::Trace finish(std::span<const WhatIfEdit> edits);

 private:
  const trace::Trace* trace_;
  trace::TraceBuilder builder_;
  // Per track, each original span's index among the builder's spans, kNoIndex when left out.
  std::vector<std::vector<std::uint32_t>> kept_spans_;
  double cursor_ = 0;  // where the next step starts
  bool started_ = false;
};

}  // namespace tscope::analyzer
