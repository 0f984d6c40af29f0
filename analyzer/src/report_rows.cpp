#include "report_rows.h"

#include <cmath>
#include <cstdio>

#include "tscope/report/units.h"

namespace tscope::analyzer {

// A fix's edits can name dozens of kernels; the JSON holds them whole.
constexpr std::size_t kFixWidth = 120;

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

std::string gpu_attribution_text(const TimeBreakdown& time) {
  std::string text =
      "GPU work is counted in the step whose host call launched it; the GPU side of "
      "a mean step spans " +
      format_duration(time.gpu_window_ns) + ".";
  if (time.gpu_by_overlap_events > 0) {
    text += " " + std::to_string(static_cast<long long>(time.gpu_by_overlap_events)) +
            " GPU activities (" + format_duration(time.gpu_by_overlap_ns) +
            " per step) had no launch record and count in the steps they overlap.";
  }
  return text;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string cost_text(const Finding& finding) {
  if (finding.cost.bytes != 0 && finding.cost.time_per_step_ns == 0) {
    return format_bytes(static_cast<double>(finding.cost.bytes));
  }
  return format_duration(finding.cost.time_per_step_ns) + " per step (" +
         format_percent(finding.cost.share_of_step) + " of step)";
}

std::string gain_text(const Finding& finding) {
  if (finding.gain_basis == GainBasis::kNone && finding.estimated_gain_bytes == 0)
    return "none claimed: no fix of it is modelled by the replay";
  if (!finding.gain_counted_under.empty()) {
    return "counted under " + finding.gain_counted_under + ", whose fix is the same (" +
           shorten(list_text(finding.fix), kFixWidth) + ")";
  }
  if (finding.gain_basis == GainBasis::kReplay) {
    return format_duration(finding.estimated_gain_ns_per_step) +
           " per step, replayed with its fix (" + shorten(list_text(finding.fix), kFixWidth) + ")";
  }
  if (finding.estimated_gain_ns_per_step > 0) {
    return "about " + format_duration(finding.estimated_gain_ns_per_step) + " per step";
  }
  if (finding.estimated_gain_bytes > 0) {
    return "about " + format_bytes(static_cast<double>(finding.estimated_gain_bytes));
  }
  return {};
}

std::string list_text(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items)
    text += (text.empty() ? "" : "; ") + item;
  return text;
}

std::string fix_change_text(const PlannedFix& fix, double step_before_ns) {
  const double change = fix.step_after_ns - step_before_ns;
  return (change < 0 ? "-" : "+") + format_duration(std::abs(change)) + " (" +
         (change < 0 ? "-" : "+") +
         format_percent(step_before_ns > 0 ? std::abs(change) / step_before_ns : 0) + ")";
}

std::string steps_text(const StepSummary& steps) {
  if (steps.whole_trace)
    return "no step ranges; the whole trace (" + format_duration(steps.mean_ns) + ") is one step";
  return std::to_string(steps.count) + " steps, mean " + format_duration(steps.mean_ns) + " (min " +
         format_duration(steps.min_ns) + ", max " + format_duration(steps.max_ns) + ", stddev " +
         format_duration(steps.stddev_ns) + ")";
}

std::string shorten(std::string_view name, std::size_t width) {
  if (name.size() <= width) return std::string(name);
  return std::string(name.substr(0, width - 3)) + "...";
}

std::string rank_set_text(const MultiRankReport& report) {
  std::string out =
      std::to_string(report.ranks.size()) + " ranks of " + std::to_string(report.world_size);
  if (!report.absent_ranks.empty()) {
    std::string absent;
    for (std::size_t i = 0; i < report.absent_ranks.size(); ++i) {
      const int first = report.absent_ranks[i];
      while (i + 1 < report.absent_ranks.size() &&
             report.absent_ranks[i + 1] == report.absent_ranks[i] + 1)
        ++i;
      absent +=
          (absent.empty() ? "" : ", ") + std::to_string(first) +
          (report.absent_ranks[i] == first ? "" : "-" + std::to_string(report.absent_ranks[i]));
    }
    out += " (absent: " + absent + ")";
  }
  if (!report.backend.empty()) out += ", backend " + report.backend;
  if (!report.run_id.empty()) out += ", run " + report.run_id;
  return out;
}

std::string matching_text(const MultiRankReport& report) {
  return std::to_string(report.collectives.size()) + " matched across ranks (" +
         (report.matched_by_seq ? "by group and sequence number" : "by order per group and op") +
         "), " + std::to_string(report.unmatched_collectives) + " not on every rank";
}

std::string clock_text(const RankReport& rank) {
  if (!rank.offset_estimated) return rank.clock_reference ? "reference" : "same host";
  if (!std::isfinite(rank.clock_uncertainty_ns)) return "unknown";
  return (rank.clock_offset_ns >= 0 ? "+" : "-") + format_duration(std::abs(rank.clock_offset_ns)) +
         " ± " + format_duration(rank.clock_uncertainty_ns);
}

std::string bandwidth_text(double bytes_per_second) {
  if (bytes_per_second <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB/s", bytes_per_second * 1e-9);
  return text;
}

}  // namespace tscope::analyzer
