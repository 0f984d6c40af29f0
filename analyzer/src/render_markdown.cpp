#include <cstdio>

#include "render_critical_path.h"
#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kNameWidth = 80;

// Table cells cannot hold '|' or newlines.
std::string cell(std::string_view text) {
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

void append_stats(std::string& out, const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return;
  out += std::string("\n## ") + heading +
         "\n\n| name | count | total | mean | p50 | p95 |\n|---|---:|---:|---:|---:|---:|\n";
  for (const NameStats& entry : entries) {
    out += "| `" + cell(shorten(entry.name, kNameWidth)) + "` | " + std::to_string(entry.count) +
           " | " + format_duration(entry.total_ns) + " | " + format_duration(entry.mean_ns) +
           " | " + format_duration(entry.p50_ns) + " | " + format_duration(entry.p95_ns) + " |\n";
  }
}

void append_findings(std::string& out, const std::vector<Finding>& findings) {
  if (findings.empty()) out += "No findings.\n";
  for (const Finding& finding : findings) {
    out += "### " + std::string(to_string(finding.severity)) + ": " + finding.title + "\n\n";
    out += "- **Kind:** `" + finding.kind + "`\n";
    out += "- **Cost:** " + cost_text(finding) + "\n";
    if (const std::string gain = gain_text(finding); !gain.empty())
      out += "- **Estimated gain:** " + gain + "\n";
    out += "- **Why:** " + finding.explanation + "\n";
    out += "- **Fix:** " + finding.recommendation + "\n";
    out += "- **Evidence:** " + std::to_string(finding.evidence.size()) + " events\n\n";
  }
}

void append_fix_plan(std::string& out, const FixPlan& plan) {
  if (plan.fixes.empty()) return;
  out += "## Fix plan\n\nEach fix replayed after the ones above it, over " +
         std::to_string(plan.replayed_steps) + " steps; measured mean step " +
         format_duration(plan.measured_step_ns) +
         ".\n\n| # | finding | step after | change | what-if edits |\n|---:|---|---:|---:|---|\n";
  double before = plan.measured_step_ns;
  for (std::size_t i = 0; i < plan.fixes.size(); ++i) {
    const PlannedFix& fix = plan.fixes[i];
    out += "| " + std::to_string(i + 1) + " | `" + list_text(fix.kinds) + "` | " +
           format_duration(fix.step_after_ns) + " | " + fix_change_text(fix, before) + " | `" +
           cell(list_text(fix.edits)) + "` |\n";
    before = fix.step_after_ns;
  }
  out += "\n";
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "# Analysis of " +
                    (report.source.empty() ? std::string("trace") : cell(report.source)) + "\n\n";
  out += "Steps: " + steps_text(report.steps) + "\n\n";
  append_fix_plan(out, report.fix_plan);
  out += "## Findings\n\n";
  append_findings(out, report.findings);
  if (report.time) {
    out += "## Where the time goes\n\nMean step: " + format_duration(report.time->step_ns) +
           "\n\n| part | per step | share |\n|---|---:|---:|\n";
    std::vector<TimeRow> rows =
        report.time->has_gpu ? gpu_rows(*report.time) : std::vector<TimeRow>{};
    for (const TimeRow& row : host_rows(*report.time))
      rows.push_back(row);
    for (const TimeRow& row : rows) {
      out += "| " + std::string(row.label) + " | " + format_duration(row.ns) + " | " +
             format_percent(report.time->step_ns > 0 ? row.ns / report.time->step_ns : 0) + " |\n";
    }
    if (report.time->has_gpu) out += "\n" + gpu_attribution_text(*report.time) + "\n";
  }
  if (report.streams && !report.streams->empty()) {
    out +=
        "\n## GPU streams\n\n| stream | work | idle: host wait | idle: kernel wait | idle: other "
        "| idle intervals | p50 | p95 | max | queue max | queue mean | queue full |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const StreamStats& stream : *report.streams) {
      char queue[64];
      std::snprintf(queue, sizeof queue, "%.0f | %.1f", stream.queue.max, stream.queue.time_mean);
      out += "| " + cell(stream.name) + " | " + std::to_string(stream.activities) + " | " +
             format_duration(stream.idle.host_wait_ns) + " | " +
             format_duration(stream.idle.kernel_wait_ns) + " | " +
             format_duration(stream.idle.other_ns) + " | " +
             std::to_string(stream.idle.intervals.count) + " | " +
             format_duration(stream.idle.intervals.p50_ns) + " | " +
             format_duration(stream.idle.intervals.p95_ns) + " | " +
             format_duration(stream.idle.intervals.max_ns) + " | " + queue + " | " +
             format_duration(stream.queue.full_ns) + " |\n";
    }
  }
  if (report.critical_path) out += critical_path_markdown(*report.critical_path);
  if (report.breakdown) {
    append_stats(out, "Top operators", report.breakdown->ops);
    append_stats(out, "Top kernels", report.breakdown->kernels);
  }
  return out;
}

std::string render_markdown(const MultiRankReport& report) {
  std::string out = "# Analysis of " + cell(rank_set_text(report)) + "\n\n";
  out += "Collectives: " + matching_text(report) + ". Step time across ranks: min " +
         format_duration(report.step_time.min_ns) + ", median " +
         format_duration(report.step_time.median_ns) + ", max " +
         format_duration(report.step_time.max_ns) + ".\n\n## Findings\n\n";
  append_findings(out, report.findings);
  out +=
      "## Ranks\n\n| rank | steps | mean step | wait/step | last at | collectives | overlap | "
      "clock offset | trace |\n"
      "|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
  for (const RankReport& rank : report.ranks) {
    out += "| " + std::to_string(rank.rank) + " | " + std::to_string(rank.steps.count) + " | " +
           format_duration(rank.steps.mean_ns) + " | " + format_duration(rank.wait_ns_per_step) +
           " | " + std::to_string(rank.last_arrivals) + " | " + std::to_string(rank.collectives) +
           " | " + format_percent(rank.overlap.share()) + " | " + clock_text(rank) + " | `" +
           cell(rank.source) + "` |\n";
  }
  if (!report.collective_groups.empty()) {
    out +=
        "\n## Collectives by group and op\n\n| group | op | count | mean skew | max skew | mean "
        "transfer | bus bw |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
    for (const CollectiveGroupStats& group : report.collective_groups) {
      out += "| " + cell(group.group.empty() ? "-" : group.group) + " | " +
             std::string(to_string(group.op)) + " | " + std::to_string(group.count) + " | " +
             format_duration(group.mean_skew_ns) + " | " + format_duration(group.max_skew_ns) +
             " | " + format_duration(group.mean_transfer_ns) + " | " +
             bandwidth_text(group.mean_bus_bandwidth) + " |\n";
    }
  }
  return out;
}

}  // namespace tscope::analyzer
