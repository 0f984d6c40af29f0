#pragma once
// Compares two traces op by op and kernel by kernel, per training step: answers "this change made
// the step 8% slower because kernel X got twice as slow and op Y now runs twice per step".

#include <cstdint>
#include <string>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::regress {

enum class DiffEntryKind { kOp, kKernel };

// Step spans (Kineto's ProfilerStep#N, our engine's steps) on host threads, summarised.
struct StepDistribution {
  std::size_t steps = 1;         // the trace counts as one step when it has no step spans
  bool from_step_spans = false;  // false: per-step figures are whole-trace totals
  double mean_ns = 0.0;
  double min_ns = 0.0;
  double median_ns = 0.0;
  double p90_ns = 0.0;
  double max_ns = 0.0;
};

struct DiffTotals {
  std::uint64_t count = 0;
  std::int64_t time_ns = 0;  // summed span durations (inclusive of nested spans)
};

struct DiffEntry {
  DiffEntryKind kind = DiffEntryKind::kOp;
  std::string name;
  DiffTotals before;
  DiffTotals after;
  double calls_per_step_before = 0.0;
  double calls_per_step_after = 0.0;
  double time_per_step_before_ns = 0.0;
  double time_per_step_after_ns = 0.0;

  double time_added_per_step_ns() const { return time_per_step_after_ns - time_per_step_before_ns; }
  bool added() const { return before.count == 0; }
  bool removed() const { return after.count == 0; }
};

struct TraceDiff {
  StepDistribution before;
  StepDistribution after;
  // Every op (cpu_op spans) and kernel of either trace, the ones that add the most time per step
  // first and the ones that save the most last.
  std::vector<DiffEntry> entries;
};

StepDistribution step_distribution(const trace::Trace& trace);

TraceDiff diff_traces(const trace::Trace& before, const trace::Trace& after);

}  // namespace tscope::regress
