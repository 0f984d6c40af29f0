#pragma once
// Where the time of a mean step goes: GPU busy by kind of work, GPU idle by cause (in the style of
// Holistic Trace Analysis), and the main host thread's split. CPU-only traces get the host split.

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

// All figures are nanoseconds per mean step; the parts of each side add up to step_ns.
struct TimeBreakdown {
  double step_ns = 0;
  bool has_gpu = false;
  double gpu_compute_ns = 0;
  double gpu_communication_ns = 0;
  double gpu_copy_ns = 0;
  double gpu_memset_ns = 0;
  double gpu_idle_host_wait_ns = 0;    // the next launch began after the GPU ran dry
  double gpu_idle_kernel_wait_ns = 0;  // back-to-back launch overhead (<= kernel_wait_ns)
  double gpu_idle_other_ns = 0;
  double host_data_wait_ns = 0;
  double host_sync_ns = 0;
  double host_optimizer_ns = 0;
  double host_ops_ns = 0;  // operator dispatch and compute, runtime calls included
  double host_other_ns = 0;
};

TimeBreakdown compute_time_breakdown(const AnalysisContext& context);

}  // namespace tscope::analyzer
