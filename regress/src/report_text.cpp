// The terminal table, the row cells shared with Markdown, and format dispatch.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "tscope/regress/report.h"
#include "tscope/report/units.h"

namespace tscope::regress {
namespace {

std::string format_value(double value, const Metric& metric, bool is_ratio) {
  if (is_ratio) return fmt::format("{:.4f}x", value);
  if (metric.name == "real_time" || metric.name == "cpu_time") return format_duration(value);
  return fmt::format("{:.4g}", value);
}

std::string format_change(double change) {
  if (!std::isfinite(change)) return "n/a";
  return fmt::format("{:+.2f}%", change * 100.0);
}

}  // namespace

std::optional<ReportFormat> report_format_named(std::string_view name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "md") return ReportFormat::kMarkdown;
  if (name == "json") return ReportFormat::kJson;
  return std::nullopt;
}

std::string render_report(const ComparisonReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::kText:
      return render_text(report);
    case ReportFormat::kMarkdown:
      return render_markdown(report);
    case ReportFormat::kJson:
      return render_json(report);
  }
  return {};
}

ReportRow report_row(const BenchmarkComparison& comparison, const Metric& metric) {
  const bool is_ratio = !comparison.reference.empty();
  ReportRow row;
  row.name =
      is_ratio ? fmt::format("{} / {}", comparison.name, comparison.reference) : comparison.name;
  row.base = format_value(comparison.base_median, metric, is_ratio);
  row.candidate = format_value(comparison.new_median, metric, is_ratio);
  row.change = format_change(comparison.change);
  row.p_value = comparison.u_test
                    ? fmt::format("{:.4f}", comparison.u_test->p_value)
                    : fmt::format("n/a ({}v{})", comparison.base_count, comparison.new_count);
  row.verdict = std::string(verdict_name(comparison.verdict));
  return row;
}

ReportRow geomean_row(const ComparisonReport& report) {
  ReportRow row;
  row.name = "geomean";
  row.change = report.geomean_change ? format_change(*report.geomean_change) : "n/a";
  return row;
}

std::string render_text(const ComparisonReport& report) {
  std::vector<ReportRow> rows{{"Benchmark", "Base", "New", "Change", "p-value", "Verdict"}};
  for (const BenchmarkComparison& comparison : report.benchmarks)
    rows.push_back(report_row(comparison, report.metric));
  rows.push_back(geomean_row(report));

  std::array<std::size_t, 6> widths{};
  for (const ReportRow& row : rows) {
    const std::array<const std::string*, 6> cells{&row.name,   &row.base,    &row.candidate,
                                                  &row.change, &row.p_value, &row.verdict};
    for (std::size_t column = 0; column < cells.size(); ++column)
      widths[column] = std::max(widths[column], cells[column]->size());
  }

  std::string text =
      fmt::format("Comparing {} (base) to {} (new), metric {} ({} is better), alpha {}\n",
                  report.base_source.string(), report.new_source.string(), report.metric.name,
                  report.metric.higher_is_better ? "higher" : "lower", report.alpha);
  const auto append_row = [&](const ReportRow& row) {
    text += fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", row.name, widths[0],
                        row.base, widths[1], row.candidate, widths[2], row.change, widths[3],
                        row.p_value, widths[4], row.verdict);
  };
  append_row(rows.front());
  text +=
      std::string(widths[0] + widths[1] + widths[2] + widths[3] + widths[4] + widths[5] + 10, '-') +
      "\n";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (i + 1 == rows.size()) text += std::string(widths[0], '-') + "\n";
    append_row(rows[i]);
  }
  for (const std::string& name : report.added)
    text += fmt::format("added (only in new): {}\n", name);
  for (const std::string& name : report.removed)
    text += fmt::format("removed (only in base): {}\n", name);
  for (const std::string& warning : report.warnings)
    text += fmt::format("warning: {}\n", warning);
  const auto regressions =
      std::count_if(report.benchmarks.begin(), report.benchmarks.end(),
                    [](const BenchmarkComparison& b) { return b.verdict == Verdict::kRegressed; });
  text += regressions == 0 ? std::string("result: no regression\n")
                           : fmt::format("result: {} regressed\n", regressions);
  return text;
}

}  // namespace tscope::regress
