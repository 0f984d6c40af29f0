#include "render_section.h"
#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

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
           markdown_cell(list_text(fix.edits)) + "` |\n";
    before = fix.step_after_ns;
  }
  out += "\n";
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "# Analysis of " +
                    (report.source.empty() ? std::string("trace") : markdown_cell(report.source)) +
                    "\n\n";
  out += "Steps: " + steps_text(report.steps) + "\n\n";
  append_fix_plan(out, report.fix_plan);
  out += "## Findings\n\n";
  append_findings(out, report.findings);
  for (const Section& section : report.sections)
    out += section_markdown(section);
  return out;
}

std::string render_markdown(const MultiRankReport& report) {
  std::string out = "# Analysis of " + markdown_cell(rank_set_text(report)) + "\n\n";
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
           markdown_cell(rank.source) + "` |\n";
  }
  if (!report.collective_groups.empty()) {
    out +=
        "\n## Collectives by group and op\n\n| group | op | count | mean skew | max skew | mean "
        "transfer | bus bw |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
    for (const CollectiveGroupStats& group : report.collective_groups) {
      out += "| " + markdown_cell(group.group.empty() ? "-" : group.group) + " | " +
             std::string(to_string(group.op)) + " | " + std::to_string(group.count) + " | " +
             format_duration(group.mean_skew_ns) + " | " + format_duration(group.max_skew_ns) +
             " | " + format_duration(group.mean_transfer_ns) + " | " +
             bandwidth_text(group.mean_bus_bandwidth) + " |\n";
    }
  }
  return out;
}

}  // namespace tscope::analyzer
