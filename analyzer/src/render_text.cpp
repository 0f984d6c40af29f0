#include "render_section.h"
#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

void append_findings(std::string& out, const std::vector<Finding>& findings) {
  std::size_t shown = 0;
  for (const Finding& finding : findings) {
    if (finding.severity == Severity::kInfo) continue;
    ++shown;
    out += formatted("%zu. [%s] %s\n", shown, upper(to_string(finding.severity)).c_str(),
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
    out +=
        formatted("  %zu. %-20s step %10s  %-22s %s\n", i + 1, list_text(fix.kinds).c_str(),
                  format_duration(fix.step_after_ns).c_str(), fix_change_text(fix, before).c_str(),
                  shorten(list_text(fix.edits), kTextNameWidth).c_str());
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

  for (const Section& section : report.sections)
    out += section_text(section);
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
  out += formatted("  %-5s %6s %11s %11s %8s %11s %8s %-22s %s\n", "rank", "steps", "mean step",
                   "wait/step", "last at", "collectives", "overlap", "clock offset", "trace");
  for (const RankReport& rank : report.ranks) {
    out += formatted("  %-5d %6zu %11s %11s %8zu %11zu %8s %-22s %s\n", rank.rank, rank.steps.count,
                     format_duration(rank.steps.mean_ns).c_str(),
                     format_duration(rank.wait_ns_per_step).c_str(), rank.last_arrivals,
                     rank.collectives, format_percent(rank.overlap.share()).c_str(),
                     clock_text(rank).c_str(), rank.source.c_str());
  }
  if (!report.collective_groups.empty()) {
    out += "\nCollectives by group and op\n";
    out += formatted("  %-12s %-15s %6s %11s %11s %13s %12s\n", "group", "op", "count", "mean skew",
                     "max skew", "mean transfer", "bus bw");
    for (const CollectiveGroupStats& group : report.collective_groups) {
      out += formatted("  %-12s %-15s %6zu %11s %11s %13s %12s\n",
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
