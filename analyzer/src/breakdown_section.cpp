// The `breakdown` analysis: the operators and kernels with the most total time.

#include <array>

#include "render_section.h"
#include "report_rows.h"
#include "svg_chart.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/report.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

std::string stats_text(const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return {};
  std::string out = std::string("\n") + heading;
  out += formatted("\n  %-60s %8s %11s %11s %11s %11s\n", "name", "count", "total", "mean", "p50",
                   "p95");
  for (const NameStats& entry : entries) {
    out += formatted(
        "  %-60s %8llu %11s %11s %11s %11s\n", shorten(entry.name, kTextNameWidth).c_str(),
        static_cast<unsigned long long>(entry.count), format_duration(entry.total_ns).c_str(),
        format_duration(entry.mean_ns).c_str(), format_duration(entry.p50_ns).c_str(),
        format_duration(entry.p95_ns).c_str());
  }
  return out;
}

std::string stats_markdown(const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return {};
  std::string out =
      std::string("\n## ") + heading +
      "\n\n| name | count | total | mean | p50 | p95 |\n|---|---:|---:|---:|---:|---:|\n";
  for (const NameStats& entry : entries) {
    out += "| `" + markdown_cell(shorten(entry.name, kMarkdownNameWidth)) + "` | " +
           std::to_string(entry.count) + " | " + format_duration(entry.total_ns) + " | " +
           format_duration(entry.mean_ns) + " | " + format_duration(entry.p50_ns) + " | " +
           format_duration(entry.p95_ns) + " |\n";
  }
  return out;
}

void write_stats_json(JsonWriter& json, const std::vector<NameStats>& entries) {
  json.begin_array();
  for (const NameStats& entry : entries) {
    json.begin_object();
    json.field("name", entry.name);
    json.field("count", entry.count);
    json.field("total_ns", entry.total_ns);
    json.field("mean_ns", entry.mean_ns);
    json.field("p50_ns", entry.p50_ns);
    json.field("p95_ns", entry.p95_ns);
    json.end_object();
  }
  json.end_array();
}

std::string stats_html(std::string_view id, std::string_view heading,
                       const std::vector<NameStats>& entries, const std::string& color) {
  if (entries.empty()) return {};
  std::vector<BarRow> rows;
  rows.reserve(entries.size());
  for (const NameStats& entry : entries) {
    rows.push_back({entry.name, entry.total_ns,
                    format_duration(entry.total_ns) + " (" + std::to_string(entry.count) + "x)"});
  }
  return html_section(
      id, heading,
      html_figure(id, horizontal_bar_chart(rows, color),
                  "Total time within the analyzed steps; hover a bar for the full name."));
}

class BreakdownSection final : public DataSection<OpBreakdown> {
 public:
  using DataSection::DataSection;

  std::string text() const override {
    return stats_text("Top operators by total time", data().ops) +
           stats_text("Top kernels by total time", data().kernels);
  }

  std::string markdown() const override {
    return stats_markdown("Top operators", data().ops) +
           stats_markdown("Top kernels", data().kernels);
  }

  void json(JsonWriter& json) const override {
    json.begin_object();
    json.key("ops");
    write_stats_json(json, data().ops);
    json.key("kernels");
    write_stats_json(json, data().kernels);
    json.end_object();
  }

  std::string html() const override {
    return stats_html("top-kernels", "Top GPU kernels", data().kernels, "#2e86c1") +
           stats_html("top-ops", "Top operators", data().ops, "#e67e22");
  }
};

AnalysisOutput run_breakdown(const AnalysisContext& context) {
  AnalysisOutput output;
  output.sections.push_back({std::string(kBreakdownSection),
                             "Top operators and kernels",
                             {},
                             {},
                             std::make_shared<BreakdownSection>(compute_op_breakdown(context))});
  return output;
}

constexpr std::array kSectionKeys{kBreakdownSection};

}  // namespace

extern constinit const Analysis kBreakdownAnalysis{"breakdown", {}, kSectionKeys, &run_breakdown};

}  // namespace tscope::analyzer
