// The three renderings of a comparison of two runs; text and Markdown share the row cells.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "report_rows.h"
#include "tscope/analyzer/render.h"
#include "tscope/report/json_writer.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::size_t kDiffNameWidth = 80;

// Bumped only when a field changes meaning or disappears; new fields keep the version. Version 2:
// the steps, step selection, percentiles and per-name totals of `tscope analyze`, and the
// contributions to the step-time difference.
constexpr std::string_view kSchema = "tscope.trace-diff/2";

constexpr std::string_view kContributionsHeading =
    "Top contributors to the step-time difference (time per step: op self time on the main "
    "thread, GPU work while it waits for the GPU)";
constexpr std::string_view kNamesHeading =
    "Ops and kernels (calls and summed time per step, nested time included)";
constexpr std::string_view kOtherLabel = "other / not attributed";
constexpr std::string_view kTotalLabel = "difference of the mean step";

std::string signed_time(double nanoseconds) {
  return (nanoseconds < 0 ? "-" : "+") + format_duration(std::abs(nanoseconds));
}

std::string steps_line(const StepTimes& steps) {
  std::string line = steps_text(steps.summary);
  if (!steps.summary.whole_trace) {
    line += fmt::format(", p50 {}, p90 {}", format_duration(steps.p50_ns),
                        format_duration(steps.p90_ns));
  }
  return line;
}

std::string step_change_text(const Comparison& comparison) {
  const double before = comparison.before.summary.mean_ns;
  std::string text = fmt::format("mean step {} -> {}, {}", format_duration(before),
                                 format_duration(comparison.after.summary.mean_ns),
                                 signed_time(comparison.step_change_ns()));
  if (before > 0) text += fmt::format(" ({:+.2f}%)", comparison.step_change_ns() / before * 100.0);
  return text;
}

struct ContributionRow {
  std::string kind;
  std::string name;
  std::string before;
  std::string after;
  std::string change;
};

std::vector<ContributionRow> contribution_rows(const Comparison& comparison, std::size_t top) {
  const TopContributions shown = top_contributions(comparison, top);
  std::vector<ContributionRow> rows;
  for (const Contribution& each : shown.listed) {
    rows.push_back({std::string(to_string(each.kind)), each.name, format_duration(each.before_ns),
                    format_duration(each.after_ns), signed_time(each.change_ns())});
  }
  rows.push_back({"", std::string(kOtherLabel), "", "", signed_time(shown.other_ns)});
  rows.push_back({"", std::string(kTotalLabel), format_duration(comparison.before.summary.mean_ns),
                  format_duration(comparison.after.summary.mean_ns),
                  signed_time(comparison.step_change_ns())});
  return rows;
}

struct NameRow {
  std::string kind;
  std::string name;
  std::string calls;
  std::string time;
  std::string added;
  std::string note;
};

NameRow name_row(const NameChange& change) {
  NameRow row;
  row.kind = std::string(to_string(change.kind));
  row.name = change.name;
  row.calls =
      fmt::format("{:.4g} -> {:.4g}", change.before.calls_per_step, change.after.calls_per_step);
  row.time = fmt::format("{} -> {}", format_duration(change.before.time_per_step_ns),
                         format_duration(change.after.time_per_step_ns));
  row.added = signed_time(change.time_added_per_step_ns());
  if (change.added()) {
    row.note = "added";
  } else if (change.removed()) {
    row.note = "removed";
  } else if (change.before.time_per_step_ns > 0.0) {
    row.note =
        fmt::format("{:.2f}x time", change.after.time_per_step_ns / change.before.time_per_step_ns);
  }
  return row;
}

// The names worth showing: the biggest additions, then the biggest savings, without repeats.
std::vector<NameRow> name_rows(const Comparison& comparison, std::size_t top) {
  const std::vector<NameChange>& names = comparison.names;
  std::vector<const NameChange*> shown;
  for (std::size_t i = 0; i < std::min(top, names.size()); ++i) {
    if (names[i].time_added_per_step_ns() > 0.0) shown.push_back(&names[i]);
  }
  for (std::size_t i = names.size(); i > 0 && i + top > names.size(); --i) {
    const NameChange& change = names[i - 1];
    if (change.time_added_per_step_ns() < 0.0 &&
        std::find(shown.begin(), shown.end(), &change) == shown.end()) {
      shown.push_back(&change);
    }
  }
  std::vector<NameRow> rows;
  rows.reserve(shown.size());
  for (const NameChange* change : shown)
    rows.push_back(name_row(*change));
  return rows;
}

}  // namespace

std::string render_text(const Comparison& comparison, std::size_t top) {
  std::string text = fmt::format("before: {}: {}\nafter:  {}: {}\n{}\n", comparison.before_source,
                                 steps_line(comparison.before), comparison.after_source,
                                 steps_line(comparison.after), step_change_text(comparison));

  text += fmt::format("\n{}\n", kContributionsHeading);
  std::vector<ContributionRow> contributions{{"kind", "name", "before", "after", "change"}};
  // Kernel names run to hundreds of characters of template arguments: text cuts them.
  for (ContributionRow& row : contribution_rows(comparison, top)) {
    row.name = shorten(row.name, kDiffNameWidth);
    contributions.push_back(std::move(row));
  }
  std::array<std::size_t, 5> widths{};
  for (const ContributionRow& row : contributions) {
    widths[0] = std::max(widths[0], row.kind.size());
    widths[1] = std::max(widths[1], row.name.size());
    widths[2] = std::max(widths[2], row.before.size());
    widths[3] = std::max(widths[3], row.after.size());
    widths[4] = std::max(widths[4], row.change.size());
  }
  for (const ContributionRow& row : contributions) {
    text +=
        fmt::format("  {:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}\n", row.kind, widths[0], row.name,
                    widths[1], row.before, widths[2], row.after, widths[3], row.change, widths[4]);
  }

  text += fmt::format("\n{}\n", kNamesHeading);
  std::vector<NameRow> names{{"kind", "name", "calls/step", "time/step", "added/step", ""}};
  for (NameRow& row : name_rows(comparison, top)) {
    row.name = shorten(row.name, kDiffNameWidth);
    names.push_back(std::move(row));
  }
  widths = {};
  for (const NameRow& row : names) {
    widths[0] = std::max(widths[0], row.kind.size());
    widths[1] = std::max(widths[1], row.name.size());
    widths[2] = std::max(widths[2], row.calls.size());
    widths[3] = std::max(widths[3], row.time.size());
    widths[4] = std::max(widths[4], row.added.size());
  }
  for (const NameRow& row : names) {
    text += fmt::format("  {:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", row.kind, widths[0],
                        row.name, widths[1], row.calls, widths[2], row.time, widths[3], row.added,
                        widths[4], row.note);
  }
  text += fmt::format("{} ops and kernels in all; --top sets how many are shown\n",
                      comparison.names.size());
  return text;
}

std::string render_markdown(const Comparison& comparison, std::size_t top) {
  std::string text = "### Trace diff\n\n";
  text += fmt::format("- before: `{}`: {}\n- after: `{}`: {}\n- **{}**\n",
                      markdown_cell(comparison.before_source), steps_line(comparison.before),
                      markdown_cell(comparison.after_source), steps_line(comparison.after),
                      step_change_text(comparison));
  text += fmt::format(
      "\n#### {}\n\n| kind | name | before | after | change |\n"
      "|:--|:--|--:|--:|--:|\n",
      kContributionsHeading);
  for (const ContributionRow& row : contribution_rows(comparison, top)) {
    const std::string name = row.kind.empty() ? fmt::format("*{}*", row.name)
                                              : fmt::format("`{}`", markdown_cell(row.name));
    text += fmt::format("| {} | {} | {} | {} | {} |\n", row.kind, name, row.before, row.after,
                        row.change);
  }
  text += fmt::format(
      "\n#### {}\n\n| kind | name | calls/step | time/step | added/step | |\n"
      "|:--|:--|--:|--:|--:|:--|\n",
      kNamesHeading);
  for (const NameRow& row : name_rows(comparison, top)) {
    text += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", row.kind, markdown_cell(row.name),
                        row.calls, row.time, row.added, row.note);
  }
  return text;
}

namespace {

void write_run(JsonWriter& json, std::string_view name, const std::string& source,
               const StepTimes& steps) {
  json.key(name);
  json.begin_object();
  json.field("source", source);
  json.key("steps");
  json.begin_object();
  json.field("count", static_cast<std::uint64_t>(steps.summary.count));
  json.field("whole_trace", steps.summary.whole_trace);
  json.field("mean_ns", steps.summary.mean_ns);
  json.field("min_ns", steps.summary.min_ns);
  json.field("max_ns", steps.summary.max_ns);
  json.field("stddev_ns", steps.summary.stddev_ns);
  json.field("p50_ns", steps.p50_ns);
  json.field("p90_ns", steps.p90_ns);
  json.end_object();
  json.end_object();
}

void write_totals(JsonWriter& json, std::string_view name, const NameTotals& totals) {
  json.key(name);
  json.begin_object();
  json.field("count", totals.count);
  json.field("time_ns", totals.time_ns);
  json.field("calls_per_step", totals.calls_per_step);
  json.field("time_per_step_ns", totals.time_per_step_ns);
  json.end_object();
}

}  // namespace

std::string render_json(const Comparison& comparison) {
  JsonWriter json(JsonLayout::kIndented);
  json.begin_object();
  json.field("schema", kSchema);
  write_run(json, "before", comparison.before_source, comparison.before);
  write_run(json, "after", comparison.after_source, comparison.after);
  json.field("step_change_ns", comparison.step_change_ns());
  json.key("contributions");
  json.begin_array();
  for (const Contribution& each : comparison.contributions) {
    json.begin_object();
    json.field("kind", to_string(each.kind));
    json.field("name", each.name);
    json.field("before_ns", each.before_ns);
    json.field("after_ns", each.after_ns);
    json.field("change_ns", each.change_ns());
    json.end_object();
  }
  json.end_array();
  json.key("not_attributed");
  json.begin_object();
  json.field("before_ns", comparison.not_attributed_before_ns);
  json.field("after_ns", comparison.not_attributed_after_ns);
  json.field("change_ns", comparison.not_attributed_after_ns - comparison.not_attributed_before_ns);
  json.end_object();
  json.key("entries");
  json.begin_array();
  for (const NameChange& change : comparison.names) {
    json.begin_object();
    json.field("kind", to_string(change.kind));
    json.field("name", change.name);
    json.field("status", change.added() ? "added" : change.removed() ? "removed" : "both");
    write_totals(json, "before", change.before);
    write_totals(json, "after", change.after);
    json.field("time_added_per_step_ns", change.time_added_per_step_ns());
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.str() + "\n";
}

}  // namespace tscope::analyzer
