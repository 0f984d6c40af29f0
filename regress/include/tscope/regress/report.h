#pragma once
// Renders a ComparisonReport: a terminal table, Markdown for a pull-request comment, and JSON
// with the stable schema documented in docs/regression.md.

#include <optional>
#include <string>
#include <string_view>

#include "tscope/regress/comparison.h"

namespace tscope::regress {

enum class ReportFormat { kText, kMarkdown, kJson };

// "text", "md" or "json".
std::optional<ReportFormat> report_format_named(std::string_view name);

std::string render_report(const ComparisonReport& report, ReportFormat format);

std::string render_text(const ComparisonReport& report);
std::string render_markdown(const ComparisonReport& report);
std::string render_json(const ComparisonReport& report);

// The cells of one table row, shared by the text and Markdown tables so both read the same.
struct ReportRow {
  std::string name;
  std::string base;
  std::string candidate;
  std::string change;
  std::string p_value;
  std::string verdict;
};

ReportRow report_row(const BenchmarkComparison& comparison, const Metric& metric);
ReportRow geomean_row(const ComparisonReport& report);

}  // namespace tscope::regress
