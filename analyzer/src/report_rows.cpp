#include "report_rows.h"

#include "tscope/analyzer/units.h"

namespace tscope::analyzer {

std::vector<TimeRow> gpu_rows(const TimeBreakdown& time) {
  return {{"GPU compute kernels", time.gpu_compute_ns},
          {"GPU communication", time.gpu_communication_ns},
          {"GPU copies", time.gpu_copy_ns},
          {"GPU memsets", time.gpu_memset_ns},
          {"GPU idle: host too slow to launch", time.gpu_idle_host_wait_ns},
          {"GPU idle: kernel-to-kernel gaps", time.gpu_idle_kernel_wait_ns},
          {"GPU idle: other", time.gpu_idle_other_ns}};
}

std::vector<TimeRow> host_rows(const TimeBreakdown& time) {
  return {{"host: data wait", time.host_data_wait_ns},
          {"host: synchronization", time.host_sync_ns},
          {"host: optimizer", time.host_optimizer_ns},
          {time.has_gpu ? "host: op dispatch" : "host: compute ops", time.host_ops_ns},
          {"host: other", time.host_other_ns}};
}

std::string cost_text(const Finding& finding) {
  if (finding.cost.bytes != 0 && finding.cost.time_per_step_ns == 0) {
    return format_bytes(static_cast<double>(finding.cost.bytes));
  }
  return format_duration(finding.cost.time_per_step_ns) + " per step (" +
         format_percent(finding.cost.share_of_step) + " of step)";
}

std::string gain_text(const Finding& finding) {
  if (finding.estimated_gain_ns_per_step > 0) {
    return "about " + format_duration(finding.estimated_gain_ns_per_step) + " per step";
  }
  if (finding.estimated_gain_bytes > 0) {
    return "about " + format_bytes(static_cast<double>(finding.estimated_gain_bytes));
  }
  return {};
}

std::string steps_text(const StepSummary& steps) {
  if (steps.whole_trace) return "no step ranges; the whole trace (" + format_duration(steps.mean_ns) + ") is one step";
  return std::to_string(steps.count) + " steps, mean " + format_duration(steps.mean_ns) + " (min " +
         format_duration(steps.min_ns) + ", max " + format_duration(steps.max_ns) + ", stddev " +
         format_duration(steps.stddev_ns) + ")";
}

std::string shorten(std::string_view name, std::size_t width) {
  if (name.size() <= width) return std::string(name);
  return std::string(name.substr(0, width - 3)) + "...";
}

}  // namespace tscope::analyzer
