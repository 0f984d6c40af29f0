// The `critpath` analysis: each step's critical path through the dependency graph, the ops on
// it and the slack of those off it, and the findings drawn from it (critical_path_findings.cpp).

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

#include "render_section.h"
#include "report_rows.h"
#include "svg_chart.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/report.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kChartSteps = 40;
constexpr std::array<std::string_view, kPathPartCount> kPartColors{"#e67e22", "#c0392b", "#f4d03f",
                                                                   "#a569bd", "#7f8c8d", "#2e86c1",
                                                                   "#16a085", "#85c1e9", "#d5d8dc"};

std::string part_name(PathPart part) {
  return std::string(to_string(part));
}

std::string slack_text(double slack_ns) {
  return slack_ns == std::numeric_limits<double>::infinity() ? "-" : format_duration(slack_ns);
}

// One table row per entry: its name and part, then the cells `last_cells` gives it.
template <typename Entry, typename LastCells>
std::string entry_table(const std::vector<Entry>& entries, const std::string& header,
                        LastCells last_cells) {
  if (entries.empty()) return "";
  std::string out = header;
  for (const Entry& entry : entries) {
    out += "<tr><td>" + html_escape(shorten(entry.name, 90)) + "</td><td>" + part_name(entry.part) +
           "</td><td>" + last_cells(entry) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string critical_path_text(const CriticalPath& path) {
  std::string out = "\nCritical path (mean step " + format_duration(path.step_ns) + ")\n";
  for (std::size_t p = 0; p < kPathPartCount; ++p) {
    if (path.parts[p] <= 0) continue;
    const auto part = static_cast<PathPart>(p);
    out +=
        formatted("  %-36s %12s  %6s\n", part_name(part).c_str(),
                  format_duration(path.parts[p]).c_str(), format_percent(path.share(part)).c_str());
  }
  if (!path.on_path.empty()) {
    out += formatted("  %-60s %-13s %11s %7s\n", "on the path (would shorten the step)", "part",
                     "per step", "share");
    for (const PathEntry& entry : path.on_path) {
      out += formatted("  %-60s %-13s %11s %7s\n", shorten(entry.name, kTextNameWidth).c_str(),
                       part_name(entry.part).c_str(), format_duration(entry.path_ns).c_str(),
                       format_percent(path.step_ns > 0 ? entry.path_ns / path.step_ns : 0).c_str());
    }
  }
  if (!path.off_path.empty()) {
    out += formatted("  %-60s %-13s %11s %11s\n", "off the path", "part", "per step", "min slack");
    for (const SlackEntry& entry : path.off_path) {
      out += formatted("  %-60s %-13s %11s %11s\n", shorten(entry.name, kTextNameWidth).c_str(),
                       part_name(entry.part).c_str(), format_duration(entry.total_ns).c_str(),
                       slack_text(entry.min_slack_ns).c_str());
    }
  }
  return out;
}

std::string critical_path_markdown(const CriticalPath& path) {
  std::string out = "\n## Critical path\n\nMean step: " + format_duration(path.step_ns) +
                    "\n\n| part | per step | share |\n|---|---:|---:|\n";
  for (std::size_t p = 0; p < kPathPartCount; ++p) {
    if (path.parts[p] <= 0) continue;
    const auto part = static_cast<PathPart>(p);
    out += "| " + part_name(part) + " | " + format_duration(path.parts[p]) + " | " +
           format_percent(path.share(part)) + " |\n";
  }
  if (!path.on_path.empty()) {
    out += "\n| on the path | part | per step | share |\n|---|---|---:|---:|\n";
    for (const PathEntry& entry : path.on_path) {
      out += "| `" + shorten(entry.name, kMarkdownNameWidth) + "` | " + part_name(entry.part) +
             " | " + format_duration(entry.path_ns) + " | " +
             format_percent(path.step_ns > 0 ? entry.path_ns / path.step_ns : 0) + " |\n";
    }
  }
  if (!path.off_path.empty()) {
    out += "\n| off the path | part | per step | min slack |\n|---|---|---:|---:|\n";
    for (const SlackEntry& entry : path.off_path) {
      out += "| `" + shorten(entry.name, kMarkdownNameWidth) + "` | " + part_name(entry.part) +
             " | " + format_duration(entry.total_ns) + " | " + slack_text(entry.min_slack_ns) +
             " |\n";
    }
  }
  return out;
}

void write_critical_path_json(JsonWriter& json, const CriticalPath& path) {
  json.begin_object();
  json.field("step_ns", path.step_ns);
  json.field("graph_nodes", static_cast<std::uint64_t>(path.graph_nodes));
  json.field("graph_edges", static_cast<std::uint64_t>(path.graph_edges));
  json.key("parts");
  json.begin_object();
  for (std::size_t p = 0; p < kPathPartCount; ++p)
    json.field(part_name(static_cast<PathPart>(p)), path.parts[p]);
  json.end_object();
  json.object_array("on_path", path.on_path, [&](const PathEntry& entry) {
    json.field("name", entry.name);
    json.field("part", part_name(entry.part));
    json.field("path_ns", entry.path_ns);
    json.field("segments", static_cast<std::uint64_t>(entry.segments));
  });
  json.object_array("off_path", path.off_path, [&](const SlackEntry& entry) {
    json.field("name", entry.name);
    json.field("part", part_name(entry.part));
    json.field("total_ns", entry.total_ns);
    json.field("count", static_cast<std::uint64_t>(entry.count));
    json.field("min_slack_ns", entry.min_slack_ns);
  });
  json.end_object();
}

std::string critical_path_chart(const CriticalPath& path) {
  std::vector<std::string> names;
  std::vector<ChartSeries> series;
  series.reserve(kPathPartCount);
  for (std::size_t p = 0; p < kPathPartCount; ++p)
    series.push_back({part_name(static_cast<PathPart>(p)), std::string(kPartColors[p]), {}});
  const std::size_t shown = std::min(path.steps.size(), kChartSteps);
  for (std::size_t i = 0; i < shown; ++i) {
    const StepPath& step = path.steps[shown < 2 ? 0 : i * (path.steps.size() - 1) / (shown - 1)];
    names.push_back(step.name.empty() ? "whole trace" : step.name);
    for (std::size_t p = 0; p < kPathPartCount; ++p)
      series[p].values.push_back(step.parts[p]);
  }
  std::erase_if(series, [](const ChartSeries& each) {
    return std::all_of(each.values.begin(), each.values.end(), [](double v) { return v <= 0; });
  });
  return stacked_bar_chart(names, series, &format_duration);
}

std::string critical_path_caption(const CriticalPath& path) {
  return "What each step's critical path is made of (mean step " + format_duration(path.step_ns) +
         "): the chain of dependencies, each the last one its event waited for, from the step's "
         "end back to its start" +
         (path.steps.size() > kChartSteps ? "; " + std::to_string(kChartSteps) + " of " +
                                                std::to_string(path.steps.size()) + " steps."
                                          : ".");
}

std::string critical_path_tables(const CriticalPath& path) {
  return entry_table(path.on_path,
                     "<table class=\"critical-path\"><tr><th>On the path</th><th>Part</th><th>Per "
                     "step</th><th>Share</th></tr>\n",
                     [&](const PathEntry& entry) {
                       return format_duration(entry.path_ns) + "</td><td>" +
                              format_percent(path.step_ns > 0 ? entry.path_ns / path.step_ns : 0);
                     }) +
         entry_table(path.off_path,
                     "<table class=\"slack\"><tr><th>Off the path</th><th>Part</th><th>Per "
                     "step</th><th>Least slack</th></tr>\n",
                     [](const SlackEntry& entry) {
                       return format_duration(entry.total_ns) + "</td><td>" +
                              slack_text(entry.min_slack_ns);
                     });
}

class CriticalPathSection final : public DataSection<CriticalPath> {
 public:
  using DataSection::DataSection;

  std::string text() const override { return critical_path_text(data()); }
  std::string markdown() const override { return critical_path_markdown(data()); }
  void json(JsonWriter& json) const override { write_critical_path_json(json, data()); }
  std::string html() const override {
    return html_section(
        "critical-path", "Critical path",
        html_figure("critical-path", critical_path_chart(data()), critical_path_caption(data())) +
            critical_path_tables(data()));
  }
};

// The section and the findings come from one computation of the path.
AnalysisOutput run_critical_path(const AnalysisContext& context) {
  CriticalPath path = compute_critical_path(context);
  AnalysisOutput output;
  output.findings = find_critical_path_problems(context, path);
  output.sections.push_back({std::string(kCriticalPathSection),
                             "Critical path",
                             {},
                             {},
                             std::make_shared<CriticalPathSection>(std::move(path))});
  return output;
}

constexpr std::array kSectionKeys{kCriticalPathSection};

}  // namespace

extern constinit const Analysis kCriticalPathAnalysis{"critpath", kCriticalPathKinds, kSectionKeys,
                                                      &run_critical_path};

}  // namespace tscope::analyzer
