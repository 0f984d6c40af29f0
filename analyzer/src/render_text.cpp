#include <cstdio>

#include "render_critical_path.h"
#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kNameWidth = 60;

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

void append_line(std::string& out, const char* format, auto... values) {
  char line[512];
  std::snprintf(line, sizeof line, format, values...);
  out += line;
}

void append_time_rows(std::string& out, const std::vector<TimeRow>& rows, double step_ns) {
  for (const TimeRow& row : rows) {
    append_line(out, "  %-36s %12s  %6s\n", std::string(row.label).c_str(),
                format_duration(row.ns).c_str(),
                format_percent(step_ns > 0 ? row.ns / step_ns : 0).c_str());
  }
}

void append_stats(std::string& out, const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return;
  out += "\n";
  out += heading;
  append_line(out, "\n  %-60s %8s %11s %11s %11s %11s\n", "name", "count", "total", "mean", "p50",
              "p95");
  for (const NameStats& entry : entries) {
    append_line(out, "  %-60s %8llu %11s %11s %11s %11s\n", shorten(entry.name, kNameWidth).c_str(),
                static_cast<unsigned long long>(entry.count),
                format_duration(entry.total_ns).c_str(), format_duration(entry.mean_ns).c_str(),
                format_duration(entry.p50_ns).c_str(), format_duration(entry.p95_ns).c_str());
  }
}

void append_findings(std::string& out, const std::vector<Finding>& findings) {
  std::size_t shown = 0;
  for (const Finding& finding : findings) {
    if (finding.severity == Severity::kInfo) continue;
    ++shown;
    append_line(out, "%zu. [%s] %s\n", shown, upper(to_string(finding.severity)).c_str(),
                finding.title.c_str());
    out += "   cost: " + cost_text(finding) + "\n";
    if (const std::string gain = gain_text(finding); !gain.empty())
      out += "   gain: " + gain + "\n";
    out += "   why:  " + finding.explanation + "\n";
    out += "   fix:  " + finding.recommendation + "\n";
    if (!finding.evidence.empty()) {
      out += "   evidence: " + std::to_string(finding.evidence.size()) +
             " events, first at track " + std::to_string(finding.evidence.front().track) + " #" +
             std::to_string(finding.evidence.front().index) + "\n";
    }
    out += "\n";
  }
  if (shown == 0) out += "No problems found above INFO.\n\n";
  for (const Finding& finding : findings) {
    if (finding.severity == Severity::kInfo) out += "info: " + finding.title + "\n";
  }
}

void append_fix_plan(std::string& out, const FixPlan& plan) {
  if (plan.fixes.empty()) return;
  out += "Fix plan (each fix replayed after the ones above it, over " +
         std::to_string(plan.replayed_steps) + " steps; measured mean step " +
         format_duration(plan.measured_step_ns) + ")\n";
  double before = plan.measured_step_ns;
  for (std::size_t i = 0; i < plan.fixes.size(); ++i) {
    const PlannedFix& fix = plan.fixes[i];
    append_line(out, "  %zu. %-20s step %10s  %-22s %s\n", i + 1, list_text(fix.kinds).c_str(),
                format_duration(fix.step_after_ns).c_str(), fix_change_text(fix, before).c_str(),
                shorten(list_text(fix.edits), kNameWidth).c_str());
    before = fix.step_after_ns;
  }
  out += "\n";
}

}  // namespace

std::string render_text(const Report& report) {
  std::string out =
      "Analysis of " + (report.source.empty() ? std::string("trace") : report.source) + "\n";
  out += "Steps: " + steps_text(report.steps) + "\n\n";

  append_fix_plan(out, report.fix_plan);
  append_findings(out, report.findings);

  if (report.time) {
    out += "\nWhere the time goes (mean step " + format_duration(report.time->step_ns) + ")\n";
    if (report.time->has_gpu) append_time_rows(out, gpu_rows(*report.time), report.time->step_ns);
    append_time_rows(out, host_rows(*report.time), report.time->step_ns);
    if (report.time->has_gpu) out += "  " + gpu_attribution_text(*report.time) + "\n";
  }
  if (report.streams && !report.streams->empty()) {
    out += "\nGPU streams (idle per step by cause; idle intervals; launch queue)\n";
    append_line(out, "  %-24s %8s %10s %10s %10s %7s %9s %9s %9s %7s %9s %9s\n", "stream", "work",
                "host wait", "kern wait", "other", "gaps", "gap p50", "gap p95", "gap max", "queue",
                "mean", "full");
    for (const StreamStats& stream : *report.streams) {
      append_line(out, "  %-24s %8zu %10s %10s %10s %7zu %9s %9s %9s %7.0f %9.1f %9s\n",
                  shorten(stream.name, 24).c_str(), stream.activities,
                  format_duration(stream.idle.host_wait_ns).c_str(),
                  format_duration(stream.idle.kernel_wait_ns).c_str(),
                  format_duration(stream.idle.other_ns).c_str(), stream.idle.intervals.count,
                  format_duration(stream.idle.intervals.p50_ns).c_str(),
                  format_duration(stream.idle.intervals.p95_ns).c_str(),
                  format_duration(stream.idle.intervals.max_ns).c_str(), stream.queue.max,
                  stream.queue.time_mean, format_duration(stream.queue.full_ns).c_str());
    }
  }
  if (report.critical_path) out += critical_path_text(*report.critical_path);
  if (report.breakdown) {
    append_stats(out, "Top operators by total time", report.breakdown->ops);
    append_stats(out, "Top kernels by total time", report.breakdown->kernels);
  }
  return out;
}

std::string render_text(const MultiRankReport& report) {
  std::string out = "Analysis of " + rank_set_text(report) + "\n";
  out += "Collectives: " + matching_text(report) + "\n";
  out += "Step time across ranks: min " + format_duration(report.step_time.min_ns) + ", median " +
         format_duration(report.step_time.median_ns) + ", max " +
         format_duration(report.step_time.max_ns) + "\n\n";
  append_findings(out, report.findings);

  out += "\nRanks\n";
  append_line(out, "  %-5s %6s %11s %11s %8s %11s %8s %-22s %s\n", "rank", "steps", "mean step",
              "wait/step", "last at", "collectives", "overlap", "clock offset", "trace");
  for (const RankReport& rank : report.ranks) {
    append_line(out, "  %-5d %6zu %11s %11s %8zu %11zu %8s %-22s %s\n", rank.rank, rank.steps.count,
                format_duration(rank.steps.mean_ns).c_str(),
                format_duration(rank.wait_ns_per_step).c_str(), rank.last_arrivals,
                rank.collectives, format_percent(rank.overlap.share()).c_str(),
                clock_text(rank).c_str(), rank.source.c_str());
  }
  if (!report.collective_groups.empty()) {
    out += "\nCollectives by group and op\n";
    append_line(out, "  %-12s %-15s %6s %11s %11s %13s %12s\n", "group", "op", "count", "mean skew",
                "max skew", "mean transfer", "bus bw");
    for (const CollectiveGroupStats& group : report.collective_groups) {
      append_line(out, "  %-12s %-15s %6zu %11s %11s %13s %12s\n",
                  shorten(group.group.empty() ? "-" : group.group, 12).c_str(),
                  std::string(to_string(group.op)).c_str(), group.count,
                  format_duration(group.mean_skew_ns).c_str(),
                  format_duration(group.max_skew_ns).c_str(),
                  format_duration(group.mean_transfer_ns).c_str(),
                  bandwidth_text(group.mean_bus_bandwidth).c_str());
    }
  }
  return out;
}

}  // namespace tscope::analyzer
