#pragma once
// Two runs compared as `tscope analyze` sees each of them: the same steps and step selection, the
// step-time distribution, per-name totals per step, and what each op and GPU activity contributes
// to the difference of the mean step. What `tscope diff` renders.
//
// Contributions add up. Every instant of a selected step on the main thread (the step ranges'
// thread, analysis_context.h) counts once, toward exactly one name or toward nothing:
// - while the main thread waits for the GPU (a synchronize call, a blocking copy), toward the GPU
//   activities running then (kernels, copies, memsets, collectives of any stream), shared equally
//   between those that run at once;
// - otherwise, and in a wait while no GPU activity runs, toward the innermost op (`cpu_op` span)
//   of the main thread that started in the step and covers the instant: the op's self time, so a
//   parent op is never counted again through its children;
// - otherwise (Python, the data loader, launch overhead outside any op) toward nothing: "not
//   attributed".
// So a step's time is the sum of its per-name times and its unattributed time, and the difference
// of the mean steps is the sum of the per-name differences (each name's time per step after minus
// before) plus the difference of the unattributed time per step. Inclusive op times and GPU
// activity times, which overlap each other, are the per-name totals, not contributions.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/report.h"

namespace tscope::analyzer {

enum class WorkKind : std::uint8_t { kOp, kKernel, kCollective, kCopy, kMemset };
std::string_view to_string(WorkKind kind);  // "op", "kernel", "collective", "copy", "memset"

// One run's steps: `tscope analyze`'s summary and nearest-rank percentiles (order_statistics.h).
struct StepTimes {
  StepSummary summary;
  double p50_ns = 0;
  double p90_ns = 0;
};

// A name's spans inside the selected steps (an op in the step its start falls in, a GPU activity
// in context.step_of_gpu_activity's), as `tscope analyze`'s op breakdown counts them.
struct NameTotals {
  std::uint64_t count = 0;
  double time_ns = 0;  // summed durations, nested time included
  double calls_per_step = 0;
  double time_per_step_ns = 0;
};

struct NameChange {
  WorkKind kind = WorkKind::kOp;  // kOp (cpu_op spans) or kKernel
  std::string name;
  NameTotals before;
  NameTotals after;

  double time_added_per_step_ns() const { return after.time_per_step_ns - before.time_per_step_ns; }
  bool added() const { return before.count == 0; }
  bool removed() const { return after.count == 0; }
};

// A name's attributed time per step (see the top of this file) before and after.
struct Contribution {
  WorkKind kind = WorkKind::kOp;
  std::string name;
  double before_ns = 0;
  double after_ns = 0;

  double change_ns() const { return after_ns - before_ns; }
};

struct Comparison {
  std::string before_source;  // what was compared, usually the file names
  std::string after_source;
  StepTimes before;
  StepTimes after;
  // Every op and kernel of either run, those that add the most time per step first and those that
  // save the most last.
  std::vector<NameChange> names;
  // Every name with attributed time in either run, the largest change (either way) first.
  std::vector<Contribution> contributions;
  double not_attributed_before_ns = 0;  // per step
  double not_attributed_after_ns = 0;

  double step_change_ns() const { return after.summary.mean_ns - before.summary.mean_ns; }
};

// The `top` largest non-zero contributions, and what the step change leaves beside them ("other /
// not attributed": the smaller contributions and the unattributed time).
struct TopContributions {
  std::span<const Contribution> listed;
  double other_ns = 0;
};
TopContributions top_contributions(const Comparison& comparison, std::size_t top);

// Throws AnalyzerError when the runs have no steps in common: one has step ranges and the other
// none, so a step would be compared with a whole trace.
Comparison compare_runs(const AnalysisContext& before, const AnalysisContext& after,
                        std::string before_source = "before", std::string after_source = "after");

}  // namespace tscope::analyzer
