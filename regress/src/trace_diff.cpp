// Per-name totals of op and kernel spans, divided by the number of steps of each trace.

#include "tscope/regress/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>

namespace tscope::regress {
namespace {

using NameTotals = std::map<std::pair<DiffEntryKind, std::string>, DiffTotals>;

std::optional<DiffEntryKind> entry_kind(trace::Category category) {
  if (category == trace::Category::kCpuOp) return DiffEntryKind::kOp;
  if (category == trace::Category::kKernel) return DiffEntryKind::kKernel;
  return std::nullopt;
}

NameTotals totals_by_name(const trace::Trace& trace) {
  NameTotals totals;
  for (const trace::Track& track : trace.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const std::optional<DiffEntryKind> kind = entry_kind(spans.category[i]);
      if (!kind) continue;
      DiffTotals& entry = totals[{*kind, std::string(trace.string(spans.name[i]))}];
      ++entry.count;
      entry.time_ns += spans.end(i) - spans.start[i];
    }
  }
  return totals;
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double fraction) {
  const auto rank =
      static_cast<std::size_t>(std::llround(fraction * static_cast<double>(sorted.size() - 1)));
  return sorted[std::min(rank, sorted.size() - 1)];
}

}  // namespace

StepDistribution step_distribution(const trace::Trace& trace) {
  std::vector<double> durations;
  for (const trace::Track& track : trace.tracks()) {
    // Kineto repeats each step as a GPU annotation; the host span is the step itself.
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] == trace::Category::kStep)
        durations.push_back(static_cast<double>(spans.end(i) - spans.start[i]));
    }
  }
  StepDistribution distribution;
  if (durations.empty()) return distribution;
  std::sort(durations.begin(), durations.end());
  distribution.steps = durations.size();
  distribution.from_step_spans = true;
  distribution.mean_ns = std::accumulate(durations.begin(), durations.end(), 0.0) /
                         static_cast<double>(durations.size());
  distribution.min_ns = durations.front();
  distribution.median_ns = percentile(durations, 0.5);
  distribution.p90_ns = percentile(durations, 0.9);
  distribution.max_ns = durations.back();
  return distribution;
}

TraceDiff diff_traces(const trace::Trace& before, const trace::Trace& after) {
  TraceDiff diff;
  diff.before = step_distribution(before);
  diff.after = step_distribution(after);
  const double steps_before = static_cast<double>(diff.before.steps);
  const double steps_after = static_cast<double>(diff.after.steps);

  NameTotals merged;
  for (const auto& [key, totals] : totals_by_name(before))
    merged[key] = totals;
  NameTotals after_totals = totals_by_name(after);
  for (const auto& [key, totals] : after_totals)
    merged.try_emplace(key);

  for (const auto& [key, before_totals] : merged) {
    DiffEntry entry;
    entry.kind = key.first;
    entry.name = key.second;
    entry.before = before_totals;
    if (const auto found = after_totals.find(key); found != after_totals.end())
      entry.after = found->second;
    entry.calls_per_step_before = static_cast<double>(entry.before.count) / steps_before;
    entry.calls_per_step_after = static_cast<double>(entry.after.count) / steps_after;
    entry.time_per_step_before_ns = static_cast<double>(entry.before.time_ns) / steps_before;
    entry.time_per_step_after_ns = static_cast<double>(entry.after.time_ns) / steps_after;
    diff.entries.push_back(std::move(entry));
  }
  std::stable_sort(diff.entries.begin(), diff.entries.end(),
                   [](const DiffEntry& a, const DiffEntry& b) {
                     return a.time_added_per_step_ns() > b.time_added_per_step_ns();
                   });
  return diff;
}

}  // namespace tscope::regress
