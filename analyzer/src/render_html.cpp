// The HTML report: one self-contained page (inline CSS and SVG, no script, no network) with the
// findings and the charts a reader looks at first.

#include <algorithm>
#include <array>

#include "render_section.h"
#include "report_rows.h"
#include "svg_chart.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 980px; color: #1d2330; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
.source { color: #5b6577; margin-top: 0; word-break: break-all; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid #e3e6ec; }
th { font-weight: 600; background: #f5f6f9; }
.severity { font-weight: 600; text-transform: uppercase; font-size: 11px; padding: 2px 6px;
  border-radius: 3px; color: white; }
.high { background: #c0392b; } .medium { background: #d68910; } .low { background: #2e86c1; }
.info { background: #7f8c8d; }
details { margin-top: 4px; color: #3a4354; } summary { cursor: pointer; color: #2e5aa8; }
figure.chart { margin: 8px 0; } figcaption { color: #5b6577; font-size: 12px; }
svg text { font: 11px system-ui, sans-serif; fill: #1d2330; } svg text.small { font-size: 10px; }
svg .grid { stroke: #e3e6ec; } svg .area { fill: #7fb3e6; stroke: #2e6fb0; stroke-width: 1.5; }
svg .peak { fill: #c0392b; } svg .roof { fill: none; stroke: #1d2330; stroke-width: 2; }
svg .op { fill: #e67e22; stroke: #8a4b0f; }
ol.roofline { font-size: 12px; color: #3a4354; }
)";

// Colours of the breakdown rows, in the order report_rows.h lists them.
constexpr std::array<std::string_view, 7> kGpuColors{"#2e86c1", "#8e44ad", "#16a085", "#27ae60",
                                                     "#e67e22", "#f4d03f", "#bdc3c7"};
constexpr std::array<std::string_view, 5> kHostColors{"#e67e22", "#c0392b", "#8e44ad", "#2e86c1",
                                                      "#bdc3c7"};

std::string page_start(const std::string& title, const std::string& subtitle) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
         html_escape(title) + "</title><style>" + std::string(kStyle) +
         "</style></head><body>\n<h1>" + html_escape(title) + "</h1><p class=\"source\">" +
         html_escape(subtitle) + "</p>\n";
}

std::string fix_plan_section(const FixPlan& plan) {
  if (plan.fixes.empty()) return {};
  std::string body = "<p>Each fix replayed after the ones above it, over " +
                     std::to_string(plan.replayed_steps) + " steps; measured mean step " +
                     html_escape(format_duration(plan.measured_step_ns)) +
                     ".</p>\n<table><tr><th>#</th><th>Finding</th><th>Step after</th>"
                     "<th>Change</th><th>What-if edits</th></tr>\n";
  double before = plan.measured_step_ns;
  for (std::size_t i = 0; i < plan.fixes.size(); ++i) {
    const PlannedFix& fix = plan.fixes[i];
    body += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + html_escape(fix.title) +
            "</td><td>" + html_escape(format_duration(fix.step_after_ns)) + "</td><td>" +
            html_escape(fix_change_text(fix, before)) + "</td><td><code>" +
            html_escape(list_text(fix.edits)) + "</code></td></tr>\n";
    before = fix.step_after_ns;
  }
  return html_section("fix-plan", "Fix plan", body + "</table>\n");
}

std::string findings_section(const std::vector<Finding>& findings) {
  if (findings.empty()) return html_section("findings", "Findings", "<p>No findings.</p>\n");
  std::string body =
      "<table><tr><th>Severity</th><th>Finding</th><th>Cost</th><th>Gain</th></tr>\n";
  for (const Finding& finding : findings) {
    const std::string severity(to_string(finding.severity));
    body += "<tr class=\"finding\" data-kind=\"";
    body += html_escape(finding.kind);
    body += "\"><td><span class=\"severity ";
    body += severity;
    body += "\">";
    body += severity;
    body += "</span></td><td>";
    body += html_escape(finding.title);
    body += "<details><summary>";
    body += html_escape(finding.kind);
    body += "</summary><p>";
    body += html_escape(finding.explanation);
    body += "</p><p><b>What to do:</b> ";
    body += html_escape(finding.recommendation);
    body += "</p></details></td><td>";
    body += html_escape(cost_text(finding));
    body += "</td><td>";
    body += html_escape(gain_text(finding));
    body += "</td></tr>\n";
  }
  return html_section("findings", "Findings", body + "</table>\n");
}

// The breakdown rows of each time as stacked series: the GPU's split when there is a GPU, else
// the main host thread's.
std::vector<ChartSeries> breakdown_series(const std::vector<TimeBreakdown>& times) {
  std::vector<ChartSeries> series;
  if (times.empty()) return series;
  const bool gpu = times.front().has_gpu;
  for (std::size_t t = 0; t < times.size(); ++t) {
    const std::vector<TimeRow> rows = gpu ? gpu_rows(times[t]) : host_rows(times[t]);
    if (series.empty()) {
      for (std::size_t r = 0; r < rows.size(); ++r) {
        series.push_back({std::string(rows[r].label),
                          std::string(gpu ? kGpuColors[r % kGpuColors.size()]
                                          : kHostColors[r % kHostColors.size()]),
                          {}});
      }
    }
    for (std::size_t r = 0; r < rows.size(); ++r)
      series[r].values.push_back(rows[r].ns);
  }
  return series;
}

std::string steps_section(const Report& report, const ReportCharts& charts) {
  std::vector<std::string> names;
  std::vector<TimeBreakdown> times;
  for (const StepBreakdown& step : charts.steps) {
    names.push_back(step.name);
    times.push_back(step.time);
  }
  std::string caption;
  if (times.empty() && report.time() != nullptr) {
    names.emplace_back(report.steps.whole_trace ? "whole trace" : "mean step");
    times.push_back(*report.time());
    caption = report.steps.whole_trace
                  ? "The trace has no step ranges: the whole trace as one step."
                  : "The mean step.";
  } else {
    caption = std::to_string(charts.steps.size()) + " of " + std::to_string(charts.step_count) +
              " steps" + (charts.steps.size() < charts.step_count ? ", spread over the run." : ".");
  }
  if (times.empty()) return {};
  return html_section(
      "step-breakdown", "Step time breakdown",
      html_figure("steps", stacked_bar_chart(names, breakdown_series(times), &format_duration),
                  caption));
}

std::string memory_section(const ReportCharts& charts) {
  if (charts.memory.empty()) return {};
  std::vector<ChartPoint> points;
  points.reserve(charts.memory.size());
  for (const MemorySample& sample : charts.memory)
    points.push_back({sample.time_ns, sample.live_bytes});
  std::vector<ChartMarker> markers;
  markers.reserve(charts.oom_times_ns.size());
  for (const double time : charts.oom_times_ns)
    markers.push_back({time, "OOM", "#c0392b"});
  std::string caption =
      "Bytes in use (all pools), peak " + format_bytes(charts.memory_peak.live_bytes) + " at " +
      format_duration(charts.memory_peak.time_ns) + " from the first memory event";
  if (!markers.empty())
    caption += "; " + std::to_string(markers.size()) + " out-of-memory event(s)";
  return html_section(
      "memory", "Memory in use",
      html_figure("memory",
                  line_chart(points, &format_duration, &format_bytes,
                             {charts.memory_peak.time_ns, charts.memory_peak.live_bytes}, markers),
                  caption + "."));
}

// Colours of the lines of several streams or ranks.
constexpr std::array<std::string_view, 6> kLineColors{"#2e86c1", "#c0392b", "#27ae60",
                                                      "#8e44ad", "#e67e22", "#16a085"};

std::string count_text(double value) {
  return std::to_string(static_cast<long>(value));
}

std::string step_number_text(double value) {
  return "step " + count_text(value);
}

std::string queue_section(const ReportCharts& charts) {
  if (charts.queues.empty()) return {};
  std::vector<ChartLine> lines;
  double longest = 0;
  for (const StreamQueueLength& queue : charts.queues) {
    ChartLine& each = lines.emplace_back();
    each.name = queue.stream;
    each.color = std::string(kLineColors[(lines.size() - 1) % kLineColors.size()]);
    for (const QueueSample& sample : queue.samples) {
      each.points.push_back({sample.time_ns, sample.length});
      longest = std::max(longest, sample.length);
    }
  }
  return html_section(
      "queue-length", "Launch queue length per stream",
      html_figure("queue", multi_line_chart(lines, &format_duration, &count_text),
                  "Kernels launched but not yet started on each stream, the most within "
                  "each time bucket (longest " +
                      count_text(longest) + "; CUDA blocks the launching thread at " +
                      count_text(kFullLaunchQueue) + ")."));
}

// The ops of the roofline findings on the device's roofline.
std::string roofline_section(const std::vector<Finding>& findings) {
  std::vector<RooflinePoint> points;
  double peak_flops = 0;
  double bandwidth = 0;
  std::string list;
  for (const Finding& finding : findings) {
    if (finding.kind != "roofline_gap") continue;
    points.push_back({finding.title, finding.metric("arithmetic_intensity"),
                      finding.metric("achieved_flops_per_second")});
    peak_flops = std::max(peak_flops, finding.metric("peak_flops_per_second"));
    bandwidth = finding.metric("peak_bytes_per_second");
    list += "<li>" + html_escape(finding.title) + "</li>";
  }
  if (points.empty() || peak_flops <= 0 || bandwidth <= 0) return {};
  return html_section(
      "roofline", "Roofline",
      html_figure("roofline", roofline_chart(points, peak_flops, bandwidth),
                  "The ops furthest below the device's roofline: arithmetic intensity "
                  "(FLOP per byte, across) against achieved FLOP/s (up), both logarithmic.") +
          "<ol class=\"roofline\">" + list + "</ol>\n");
}

}  // namespace

std::string render_html(const Report& report, const ReportCharts& charts) {
  std::string page = page_start("tscope analyze", report.source + " — " + steps_text(report.steps));
  page += fix_plan_section(report.fix_plan);
  page += findings_section(report.findings);
  page += steps_section(report, charts);
  page += memory_section(charts);
  page += queue_section(charts);
  page += roofline_section(report.findings);
  for (const Section& section : report.sections)
    page += section_html(section);
  return page + "</body></html>\n";
}

std::string render_html(const MultiRankReport& report) {
  std::string page = page_start("tscope analyze: " + std::to_string(report.ranks.size()) + " ranks",
                                rank_set_text(report) + " — " + matching_text(report));
  page += findings_section(report.findings);
  std::vector<std::string> names;
  std::vector<TimeBreakdown> times;
  std::vector<BarRow> step_rows;
  std::vector<ChartLine> step_lines;
  for (const RankReport& rank : report.ranks) {
    if (!rank.step_times.empty()) {
      ChartLine& line = step_lines.emplace_back();
      line.name = "rank " + std::to_string(rank.rank);
      line.color = std::string(kLineColors[(step_lines.size() - 1) % kLineColors.size()]);
      for (const SampledStep& step : rank.step_times)
        line.points.push_back({static_cast<double>(step.index), step.ns});
    }
    names.push_back("rank " + std::to_string(rank.rank));
    times.push_back(rank.time);
    step_rows.push_back({"rank " + std::to_string(rank.rank), rank.steps.mean_ns,
                         format_duration(rank.steps.mean_ns) + " (max " +
                             format_duration(rank.steps.max_ns) + ")"});
  }
  if (!names.empty()) {
    page += html_section(
        "rank-steps", "Step time per rank",
        html_figure("rank-steps", horizontal_bar_chart(step_rows, "#2e86c1"),
                    "Mean step time of each rank; the slowest sets the pace.") +
            html_figure("rank-breakdown",
                        stacked_bar_chart(names, breakdown_series(times), &format_duration),
                        "Where each rank's mean step goes."));
  }
  if (!step_lines.empty()) {
    page += html_section(
        "rank-step-times", "Step times per rank",
        html_figure("rank-step-times",
                    multi_line_chart(step_lines, &step_number_text, &format_duration),
                    "Each step's duration on each rank, by step number (up to " +
                        std::to_string(kSampledSteps) +
                        " steps spread over the run): a rank above the others is slow in "
                        "those steps, all ranks together point at the run."));
  }
  return page + "</body></html>\n";
}

}  // namespace tscope::analyzer
