#pragma once
// Report renderers: terminal text (what an engineer reads first), Markdown (for reviews and
// tickets), JSON (the stable schema of docs/analyzer.md, for CI) and HTML (charts to look at).

#include <string>

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

}  // namespace tscope::analyzer
