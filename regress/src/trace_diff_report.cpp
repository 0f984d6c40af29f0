// The three renderings of a trace diff; text and Markdown share the row cells.

#include "tscope/regress/trace_diff_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "json_text.h"

namespace tscope::regress {
namespace {

struct DiffRow {
  std::string kind;
  std::string name;
  std::string calls;
  std::string time;
  std::string added;
  std::string note;
};

std::string_view kind_name(DiffEntryKind kind) {
  return kind == DiffEntryKind::kOp ? "op" : "kernel";
}

std::string signed_time(double nanoseconds) {
  return (nanoseconds < 0 ? "-" : "+") + format_time_ns(std::abs(nanoseconds));
}

DiffRow diff_row(const DiffEntry& entry) {
  DiffRow row;
  row.kind = std::string(kind_name(entry.kind));
  row.name = entry.name;
  row.calls =
      fmt::format("{:.4g} -> {:.4g}", entry.calls_per_step_before, entry.calls_per_step_after);
  row.time = fmt::format("{} -> {}", format_time_ns(entry.time_per_step_before_ns),
                         format_time_ns(entry.time_per_step_after_ns));
  row.added = signed_time(entry.time_added_per_step_ns());
  if (entry.added()) {
    row.note = "added";
  } else if (entry.removed()) {
    row.note = "removed";
  } else if (entry.time_per_step_before_ns > 0.0) {
    row.note =
        fmt::format("{:.2f}x time", entry.time_per_step_after_ns / entry.time_per_step_before_ns);
  }
  return row;
}

// The entries worth showing: the biggest additions, then the biggest savings, without repeats.
std::vector<const DiffEntry*> shown_entries(const TraceDiff& diff, std::size_t top) {
  std::vector<const DiffEntry*> shown;
  const std::size_t size = diff.entries.size();
  for (std::size_t i = 0; i < std::min(top, size); ++i) {
    if (diff.entries[i].time_added_per_step_ns() > 0.0) shown.push_back(&diff.entries[i]);
  }
  for (std::size_t i = size; i > 0 && i + top > size; --i) {
    const DiffEntry& entry = diff.entries[i - 1];
    if (entry.time_added_per_step_ns() < 0.0 &&
        std::find(shown.begin(), shown.end(), &entry) == shown.end()) {
      shown.push_back(&entry);
    }
  }
  return shown;
}

std::string steps_summary(const StepDistribution& steps) {
  if (!steps.from_step_spans) return "no step spans (whole trace counted as one step)";
  return fmt::format("{} steps, median {}, p90 {}, min {}, max {}", steps.steps,
                     format_time_ns(steps.median_ns), format_time_ns(steps.p90_ns),
                     format_time_ns(steps.min_ns), format_time_ns(steps.max_ns));
}

std::string median_change(const TraceDiff& diff) {
  if (!diff.before.from_step_spans || !diff.after.from_step_spans || diff.before.median_ns <= 0.0)
    return "";
  return fmt::format("median step {:+.2f}%",
                     (diff.after.median_ns / diff.before.median_ns - 1.0) * 100.0);
}

std::string render_text(const TraceDiff& diff, std::size_t top) {
  std::string text = fmt::format("before: {}\nafter:  {}\n", steps_summary(diff.before),
                                 steps_summary(diff.after));
  if (const std::string change = median_change(diff); !change.empty()) text += change + "\n";
  std::vector<DiffRow> rows{{"kind", "name", "calls/step", "time/step", "added/step", ""}};
  for (const DiffEntry* entry : shown_entries(diff, top))
    rows.push_back(diff_row(*entry));
  std::array<std::size_t, 5> widths{};
  for (const DiffRow& row : rows) {
    widths[0] = std::max(widths[0], row.kind.size());
    widths[1] = std::max(widths[1], row.name.size());
    widths[2] = std::max(widths[2], row.calls.size());
    widths[3] = std::max(widths[3], row.time.size());
    widths[4] = std::max(widths[4], row.added.size());
  }
  for (const DiffRow& row : rows) {
    text += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", row.kind, widths[0],
                        row.name, widths[1], row.calls, widths[2], row.time, widths[3], row.added,
                        widths[4], row.note);
  }
  text += fmt::format("{} ops and kernels in all; --top sets how many are shown\n",
                      diff.entries.size());
  return text;
}

std::string render_markdown(const TraceDiff& diff, std::size_t top) {
  std::string text = "### Trace diff\n\n";
  text += fmt::format("- before: {}\n- after: {}\n", steps_summary(diff.before),
                      steps_summary(diff.after));
  if (const std::string change = median_change(diff); !change.empty())
    text += fmt::format("- **{}**\n", change);
  text += "\n| kind | name | calls/step | time/step | added/step | |\n|:--|:--|--:|--:|--:|:--|\n";
  for (const DiffEntry* entry : shown_entries(diff, top)) {
    const DiffRow row = diff_row(*entry);
    std::string name;
    for (const char c : row.name)
      name += c == '|' ? std::string("\\|") : std::string(1, c);
    text += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", row.kind, name, row.calls, row.time,
                        row.added, row.note);
  }
  return text;
}

std::string steps_json(const StepDistribution& steps) {
  return fmt::format(
      R"({{"steps": {}, "from_step_spans": {}, "mean_ns": {}, "min_ns": {}, "median_ns": {}, "p90_ns": {}, "max_ns": {}}})",
      steps.steps, steps.from_step_spans, json_number(steps.mean_ns), json_number(steps.min_ns),
      json_number(steps.median_ns), json_number(steps.p90_ns), json_number(steps.max_ns));
}

std::string side_json(const DiffTotals& totals, double calls_per_step, double time_per_step_ns) {
  return fmt::format(
      R"({{"count": {}, "time_ns": {}, "calls_per_step": {}, "time_per_step_ns": {}}})",
      totals.count, totals.time_ns, json_number(calls_per_step), json_number(time_per_step_ns));
}

std::string render_json(const TraceDiff& diff) {
  std::string json = "{\n  \"schema\": \"tscope.trace-diff/1\",\n";
  json += fmt::format("  \"before\": {},\n  \"after\": {},\n  \"entries\": [",
                      steps_json(diff.before), steps_json(diff.after));
  for (std::size_t i = 0; i < diff.entries.size(); ++i) {
    const DiffEntry& entry = diff.entries[i];
    json += fmt::format(
        R"({}{{"kind": "{}", "name": {}, "status": "{}", "before": {}, "after": {}, "time_added_per_step_ns": {}}})",
        i == 0 ? "\n    " : ",\n    ", kind_name(entry.kind), json_string(entry.name),
        entry.added()     ? "added"
        : entry.removed() ? "removed"
                          : "both",
        side_json(entry.before, entry.calls_per_step_before, entry.time_per_step_before_ns),
        side_json(entry.after, entry.calls_per_step_after, entry.time_per_step_after_ns),
        json_number(entry.time_added_per_step_ns()));
  }
  json += diff.entries.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return json;
}

}  // namespace

std::string render_trace_diff(const TraceDiff& diff, ReportFormat format, std::size_t top) {
  switch (format) {
    case ReportFormat::kText:
      return render_text(diff, top);
    case ReportFormat::kMarkdown:
      return render_markdown(diff, top);
    case ReportFormat::kJson:
      return render_json(diff);
  }
  return {};
}

}  // namespace tscope::regress
