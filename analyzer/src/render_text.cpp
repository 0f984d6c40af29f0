#include <cstdio>

#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/analyzer/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kNameWidth = 60;

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

void append_line(std::string& out, const char* format, auto... values) {
  char line[512];
  std::snprintf(line, sizeof line, format, values...);
  out += line;
}

void append_time_rows(std::string& out, const std::vector<TimeRow>& rows, double step_ns) {
  for (const TimeRow& row : rows) {
    append_line(out, "  %-36s %12s  %6s\n", std::string(row.label).c_str(), format_duration(row.ns).c_str(),
                format_percent(step_ns > 0 ? row.ns / step_ns : 0).c_str());
  }
}

void append_stats(std::string& out, const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return;
  out += "\n";
  out += heading;
  append_line(out, "\n  %-60s %8s %11s %11s %11s %11s\n", "name", "count", "total", "mean", "p50", "p95");
  for (const NameStats& entry : entries) {
    append_line(out, "  %-60s %8llu %11s %11s %11s %11s\n", shorten(entry.name, kNameWidth).c_str(),
                static_cast<unsigned long long>(entry.count), format_duration(entry.total_ns).c_str(),
                format_duration(entry.mean_ns).c_str(), format_duration(entry.p50_ns).c_str(),
                format_duration(entry.p95_ns).c_str());
  }
}

}  // namespace

std::string render_text(const Report& report) {
  std::string out = "Analysis of " + (report.source.empty() ? std::string("trace") : report.source) + "\n";
  out += "Steps: " + steps_text(report.steps) + "\n\n";

  std::size_t shown = 0;
  for (const Finding& finding : report.findings) {
    if (finding.severity == Severity::kInfo) continue;
    ++shown;
    append_line(out, "%zu. [%s] %s\n", shown, upper(to_string(finding.severity)).c_str(), finding.title.c_str());
    out += "   cost: " + cost_text(finding) + "\n";
    if (const std::string gain = gain_text(finding); !gain.empty()) out += "   gain: " + gain + "\n";
    out += "   why:  " + finding.explanation + "\n";
    out += "   fix:  " + finding.recommendation + "\n";
    if (!finding.evidence.empty()) {
      out += "   evidence: " + std::to_string(finding.evidence.size()) + " events, first at track " +
             std::to_string(finding.evidence.front().track) + " #" + std::to_string(finding.evidence.front().index) + "\n";
    }
    out += "\n";
  }
  if (shown == 0) out += "No problems found above INFO.\n\n";
  for (const Finding& finding : report.findings) {
    if (finding.severity == Severity::kInfo) out += "info: " + finding.title + "\n";
  }

  if (report.time) {
    out += "\nWhere the time goes (mean step " + format_duration(report.time->step_ns) + ")\n";
    if (report.time->has_gpu) append_time_rows(out, gpu_rows(*report.time), report.time->step_ns);
    append_time_rows(out, host_rows(*report.time), report.time->step_ns);
  }
  if (report.breakdown) {
    append_stats(out, "Top operators by total time", report.breakdown->ops);
    append_stats(out, "Top kernels by total time", report.breakdown->kernels);
  }
  return out;
}

}  // namespace tscope::analyzer
