#pragma once
// Where the time of a mean step goes: GPU busy by kind of work, GPU idle by cause (in the style of
// Holistic Trace Analysis), and the main host thread's split. CPU-only traces get the host split.

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

// All figures are nanoseconds per mean step. The host parts add up to step_ns. GPU busy time is
// the work launched in the step (by the launch call's correlation), wherever it ran; GPU idle is
// measured on the GPU's timeline over the step, the range extended to the end of the step's
// work when it outlasts the host range (a queued-up GPU finishes the last step after the host).
// The GPU parts add up to gpu_window_ns but for work that crosses a step boundary.
struct TimeBreakdown {
  double step_ns = 0;
  bool has_gpu = false;
  double gpu_window_ns = 0;
  double gpu_compute_ns = 0;
  double gpu_communication_ns = 0;
  double gpu_copy_ns = 0;
  double gpu_memset_ns = 0;
  double gpu_idle_host_wait_ns = 0;    // the next launch began after the GPU ran dry
  double gpu_idle_kernel_wait_ns = 0;  // back-to-back launch overhead (< kernel_wait_ns)
  double gpu_idle_other_ns = 0;
  // GPU work without a launch record, attributed to the steps it overlaps instead: its busy time
  // per step, and the number of such activities over all steps.
  double gpu_by_overlap_ns = 0;
  double gpu_by_overlap_events = 0;
  double host_data_wait_ns = 0;
  double host_sync_ns = 0;
  double host_optimizer_ns = 0;
  double host_ops_ns = 0;  // operator dispatch and compute, runtime calls included
  double host_other_ns = 0;
};

TimeBreakdown compute_time_breakdown(const AnalysisContext& context);

}  // namespace tscope::analyzer
