#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/analyzer/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kNameWidth = 80;

// Table cells cannot hold '|' or newlines.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

void append_stats(std::string& out, const char* heading, const std::vector<NameStats>& entries) {
  if (entries.empty()) return;
  out += std::string("\n## ") + heading + "\n\n| name | count | total | mean | p50 | p95 |\n|---|---:|---:|---:|---:|---:|\n";
  for (const NameStats& entry : entries) {
    out += "| `" + cell(shorten(entry.name, kNameWidth)) + "` | " + std::to_string(entry.count) + " | " +
           format_duration(entry.total_ns) + " | " + format_duration(entry.mean_ns) + " | " +
           format_duration(entry.p50_ns) + " | " + format_duration(entry.p95_ns) + " |\n";
  }
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "# Analysis of " + (report.source.empty() ? std::string("trace") : cell(report.source)) + "\n\n";
  out += "Steps: " + steps_text(report.steps) + "\n\n## Findings\n\n";
  if (report.findings.empty()) out += "No findings.\n";
  for (const Finding& finding : report.findings) {
    out += "### " + std::string(to_string(finding.severity)) + ": " + finding.title + "\n\n";
    out += "- **Kind:** `" + finding.kind + "`\n";
    out += "- **Cost:** " + cost_text(finding) + "\n";
    if (const std::string gain = gain_text(finding); !gain.empty()) out += "- **Estimated gain:** " + gain + "\n";
    out += "- **Why:** " + finding.explanation + "\n";
    out += "- **Fix:** " + finding.recommendation + "\n";
    out += "- **Evidence:** " + std::to_string(finding.evidence.size()) + " events\n\n";
  }
  if (report.time) {
    out += "## Where the time goes\n\nMean step: " + format_duration(report.time->step_ns) +
           "\n\n| part | per step | share |\n|---|---:|---:|\n";
    std::vector<TimeRow> rows = report.time->has_gpu ? gpu_rows(*report.time) : std::vector<TimeRow>{};
    for (const TimeRow& row : host_rows(*report.time)) rows.push_back(row);
    for (const TimeRow& row : rows) {
      out += "| " + std::string(row.label) + " | " + format_duration(row.ns) + " | " +
             format_percent(report.time->step_ns > 0 ? row.ns / report.time->step_ns : 0) + " |\n";
    }
  }
  if (report.breakdown) {
    append_stats(out, "Top operators", report.breakdown->ops);
    append_stats(out, "Top kernels", report.breakdown->kernels);
  }
  return out;
}

}  // namespace tscope::analyzer
