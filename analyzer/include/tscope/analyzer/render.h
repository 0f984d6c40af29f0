#pragma once
// Report renderers: terminal text (what an engineer reads first), Markdown (for reviews and
// tickets), JSON (the stable schema of docs/analyzer.md, for CI) and HTML (charts to look at).

#include <cstddef>
#include <string>

#include "tscope/analyzer/compare.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/analyzer/report.h"
#include "tscope/analyzer/report_charts.h"

namespace tscope::analyzer {

std::string render_text(const Report& report);
std::string render_markdown(const Report& report);
std::string render_json(const Report& report);
// One self-contained HTML page (inline SVG charts, no script, no network).
std::string render_html(const Report& report, const ReportCharts& charts);

// The same three for a multi-rank analysis; JSON under the schema "tscope.analyze.ranks/1".
std::string render_text(const MultiRankReport& report);
std::string render_markdown(const MultiRankReport& report);
std::string render_json(const MultiRankReport& report);
std::string render_html(const MultiRankReport& report);

// A comparison of two runs: text and Markdown show the `top` largest contributions to the step-time
// difference and the `top` names that add the most time per step and that save the most; JSON,
// under the schema "tscope.trace-diff/2", holds every one.
std::string render_text(const Comparison& comparison, std::size_t top);
std::string render_markdown(const Comparison& comparison, std::size_t top);
std::string render_json(const Comparison& comparison);

}  // namespace tscope::analyzer
