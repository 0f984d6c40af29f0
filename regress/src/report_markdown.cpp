// Markdown for a pull-request comment: the verdict first, then the table.

#include <fmt/format.h>

#include <algorithm>

#include "tscope/regress/report.h"

namespace tscope::regress {
namespace {

// Benchmark names carry '|' in templated names such as BM_Sort<int|float>; escape it for tables.
std::string escape_cell(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string table_line(const ReportRow& row) {
  return fmt::format("| {} | {} | {} | {} | {} | {} |\n", escape_cell(row.name), row.base,
                     row.candidate, row.change, row.p_value, row.verdict);
}

}  // namespace

std::string render_markdown(const ComparisonReport& report) {
  const auto regressions =
      std::count_if(report.benchmarks.begin(), report.benchmarks.end(),
                    [](const BenchmarkComparison& b) { return b.verdict == Verdict::kRegressed; });
  std::string text = regressions == 0
                         ? std::string("### :white_check_mark: No benchmark regressed\n\n")
                         : fmt::format("### :x: {} benchmark{} regressed\n\n", regressions,
                                       regressions == 1 ? "" : "s");
  text += fmt::format("`{}` → `{}` · metric `{}` ({} is better) · alpha {}\n\n",
                      report.base_source.filename().string(), report.new_source.filename().string(),
                      report.metric.name, report.metric.higher_is_better ? "higher" : "lower",
                      report.alpha);
  text += "| Benchmark | Base | New | Change | p-value | Verdict |\n";
  text += "|:--|--:|--:|--:|--:|:--|\n";
  for (const BenchmarkComparison& comparison : report.benchmarks) {
    ReportRow row = report_row(comparison, report.metric);
    if (comparison.verdict == Verdict::kRegressed) row.verdict = "**regressed**";
    text += table_line(row);
  }
  ReportRow summary = geomean_row(report);
  summary.name = "*geomean*";
  text += table_line(summary);
  if (!report.added.empty() || !report.removed.empty()) text += "\n";
  for (const std::string& name : report.added)
    text += fmt::format("- added: `{}`\n", name);
  for (const std::string& name : report.removed)
    text += fmt::format("- removed: `{}`\n", name);
  if (!report.warnings.empty()) text += "\n";
  for (const std::string& warning : report.warnings)
    text += fmt::format("> **Warning:** {}\n", warning);
  return text;
}

}  // namespace tscope::regress
