#include "tscope/analyzer/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "durations_by_name.h"
#include "order_statistics.h"
#include "step_time_attribution.h"
#include "tscope/analyzer/errors.h"

namespace tscope::analyzer {
namespace {

using NameKey = std::pair<WorkKind, std::string>;

StepTimes step_times(const StepSet& steps) {
  StepTimes times;
  times.summary = summarize_steps(steps);
  std::vector<TimeNs> lengths;
  lengths.reserve(steps.steps.size());
  for (const Step& step : steps.steps)
    lengths.push_back(step.end - step.start);
  times.p50_ns = nearest_rank(lengths, 0.50);
  times.p90_ns = nearest_rank(lengths, 0.90);
  return times;
}

// Count and summed duration of each op and kernel name in the selected steps.
std::map<NameKey, NameTotals> name_totals(const AnalysisContext& context) {
  std::map<NameKey, NameTotals> totals;
  for (const auto& [category, kind] : {std::pair{Category::kCpuOp, WorkKind::kOp},
                                       std::pair{Category::kKernel, WorkKind::kKernel}}) {
    const DurationsByName by_name = durations_by_name(context, category);
    for (std::size_t slot = 0; slot < by_name.names.size(); ++slot) {
      NameTotals& entry = totals[{kind, std::string(context.trace().string(by_name.names[slot]))}];
      entry.count = by_name.durations[slot].size();
      for (const TimeNs length : by_name.durations[slot])
        entry.time_ns += static_cast<double>(length);
      entry.calls_per_step = static_cast<double>(entry.count) / context.step_count();
      entry.time_per_step_ns = entry.time_ns / context.step_count();
    }
  }
  return totals;
}

std::vector<NameChange> name_changes(const AnalysisContext& before, const AnalysisContext& after) {
  std::map<NameKey, NameChange> merged;
  for (auto& [key, totals] : name_totals(before)) {
    NameChange& change = merged[key];
    change.before = totals;
  }
  for (auto& [key, totals] : name_totals(after)) {
    NameChange& change = merged[key];
    change.after = totals;
  }
  std::vector<NameChange> changes;
  changes.reserve(merged.size());
  for (auto& [key, change] : merged) {
    change.kind = key.first;
    change.name = key.second;
    changes.push_back(std::move(change));
  }
  std::stable_sort(changes.begin(), changes.end(), [](const NameChange& a, const NameChange& b) {
    return a.time_added_per_step_ns() > b.time_added_per_step_ns();
  });
  return changes;
}

// Attributed time per step of each name, and the time per step attributed to none.
std::pair<std::map<NameKey, double>, double> attributed_per_step(const AnalysisContext& context) {
  const StepTimeAttribution attribution = attribute_step_time(context);
  std::map<NameKey, double> per_step;
  for (const auto& [key, ns] : attribution.by_name_ns)
    per_step[{key.first, std::string(context.trace().string(key.second))}] +=
        ns / context.step_count();
  return {std::move(per_step), attribution.not_attributed_ns / context.step_count()};
}

}  // namespace

std::string_view to_string(WorkKind kind) {
  switch (kind) {
    case WorkKind::kOp:
      return "op";
    case WorkKind::kKernel:
      return "kernel";
    case WorkKind::kCollective:
      return "collective";
    case WorkKind::kCopy:
      return "copy";
    case WorkKind::kMemset:
      return "memset";
  }
  return "op";
}

TopContributions top_contributions(const Comparison& comparison, std::size_t top) {
  const auto& all = comparison.contributions;
  // Sorted by size of change: the non-zero ones come first.
  const auto nonzero = static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(),
                   [](const Contribution& each) { return each.change_ns() == 0; }) -
      all.begin());
  TopContributions result;
  result.listed = std::span<const Contribution>(all).first(std::min(top, nonzero));
  result.other_ns = comparison.step_change_ns();
  for (const Contribution& each : result.listed)
    result.other_ns -= each.change_ns();
  return result;
}

Comparison compare_runs(const AnalysisContext& before, const AnalysisContext& after,
                        std::string before_source, std::string after_source) {
  if (before.steps().whole_trace != after.steps().whole_trace) {
    const bool before_has_steps = !before.steps().whole_trace;
    const std::string& with_steps = before_has_steps ? before_source : after_source;
    const std::string& without = before_has_steps ? after_source : before_source;
    throw AnalyzerError(
        "no steps in common: " + with_steps + " has " +
        std::to_string((before_has_steps ? before : after).steps().steps.size()) +
        " step ranges and " + without +
        " none, so a step would be compared with a whole trace; compare traces that both mark "
        "steps (ProfilerStep#N, the engine's steps), or both not");
  }
  Comparison comparison;
  comparison.before_source = std::move(before_source);
  comparison.after_source = std::move(after_source);
  comparison.before = step_times(before.steps());
  comparison.after = step_times(after.steps());
  comparison.names = name_changes(before, after);

  auto [before_by_name, not_attributed_before] = attributed_per_step(before);
  auto [after_by_name, not_attributed_after] = attributed_per_step(after);
  comparison.not_attributed_before_ns = not_attributed_before;
  comparison.not_attributed_after_ns = not_attributed_after;
  std::map<NameKey, Contribution> merged;
  for (const auto& [key, ns] : before_by_name)
    merged[key].before_ns = ns;
  for (const auto& [key, ns] : after_by_name)
    merged[key].after_ns = ns;
  for (auto& [key, contribution] : merged) {
    contribution.kind = key.first;
    contribution.name = key.second;
    comparison.contributions.push_back(std::move(contribution));
  }
  std::stable_sort(comparison.contributions.begin(), comparison.contributions.end(),
                   [](const Contribution& a, const Contribution& b) {
                     return std::abs(a.change_ns()) > std::abs(b.change_ns());
                   });
  return comparison;
}

}  // namespace tscope::analyzer
