// The three renderings of a trace diff; text and Markdown share the row cells.

#include "tscope/regress/trace_diff_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tscope/report/json_writer.h"
#include "tscope/report/units.h"

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
  return (nanoseconds < 0 ? "-" : "+") + format_duration(std::abs(nanoseconds));
}

DiffRow diff_row(const DiffEntry& entry) {
  DiffRow row;
  row.kind = std::string(kind_name(entry.kind));
  row.name = entry.name;
  row.calls =
      fmt::format("{:.4g} -> {:.4g}", entry.calls_per_step_before, entry.calls_per_step_after);
  row.time = fmt::format("{} -> {}", format_duration(entry.time_per_step_before_ns),
                         format_duration(entry.time_per_step_after_ns));
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
                     format_duration(steps.median_ns), format_duration(steps.p90_ns),
                     format_duration(steps.min_ns), format_duration(steps.max_ns));
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

void write_steps(JsonWriter& json, std::string_view name, const StepDistribution& steps) {
  json.key(name);
  json.begin_object();
  json.field("steps", steps.steps);
  json.field("from_step_spans", steps.from_step_spans);
  json.field("mean_ns", steps.mean_ns);
  json.field("min_ns", steps.min_ns);
  json.field("median_ns", steps.median_ns);
  json.field("p90_ns", steps.p90_ns);
  json.field("max_ns", steps.max_ns);
  json.end_object();
}

void write_side(JsonWriter& json, std::string_view name, const DiffTotals& totals,
                double calls_per_step, double time_per_step_ns) {
  json.key(name);
  json.begin_object();
  json.field("count", totals.count);
  json.field("time_ns", totals.time_ns);
  json.field("calls_per_step", calls_per_step);
  json.field("time_per_step_ns", time_per_step_ns);
  json.end_object();
}

std::string render_json(const TraceDiff& diff) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", "tscope.trace-diff/1");
  write_steps(json, "before", diff.before);
  write_steps(json, "after", diff.after);
  json.key("entries");
  json.begin_array();
  for (const DiffEntry& entry : diff.entries) {
    json.begin_object();
    json.field("kind", kind_name(entry.kind));
    json.field("name", entry.name);
    json.field("status", entry.added() ? "added" : entry.removed() ? "removed" : "both");
    write_side(json, "before", entry.before, entry.calls_per_step_before,
               entry.time_per_step_before_ns);
    write_side(json, "after", entry.after, entry.calls_per_step_after,
               entry.time_per_step_after_ns);
    json.field("time_added_per_step_ns", entry.time_added_per_step_ns());
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.str() + "\n";
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
