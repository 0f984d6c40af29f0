#include "tscope/analyzer/fix_plan.h"

#include <algorithm>
#include <optional>

#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/whatif.h"

namespace tscope::analyzer {
namespace {

constexpr double kLeastPlannedShare = 0.001;

// The prediction for `edits`, or none when the replay cannot make one (an edit that matches
// nothing in the steps' trace, no step replayed).
std::optional<WhatIfResult> replayed(const AnalysisContext& context,
                                     const std::vector<WhatIfEdit>& edits) {
  try {
    WhatIfResult result = predict_steps(context, edits, {.whole_trace_as_step = true});
    if (result.replayed_steps == 0) return std::nullopt;
    return result;
  } catch (const AnalyzerError&) {
    return std::nullopt;
  }
}

}  // namespace

FixPlan plan_fixes(const AnalysisContext& context, std::vector<Finding>& findings) {
  FixPlan plan;
  struct Candidate {
    Finding* finding;
    std::vector<WhatIfEdit> edits;
    double gain_ns;
  };
  std::vector<Candidate> candidates;
  for (Finding& finding : findings) {
    if (finding.fix.empty()) continue;
    std::vector<WhatIfEdit> edits;
    edits.reserve(finding.fix.size());
    for (const std::string& text : finding.fix)
      edits.push_back(parse_edit(text));
    const std::optional<WhatIfResult> result = replayed(context, edits);
    if (!result) continue;
    finding.estimated_gain_ns_per_step =
        std::max(0.0, result->measured_mean_ns - result->predicted_mean_ns);
    finding.gain_basis = GainBasis::kReplay;
    plan.replayed_steps = result->replayed_steps;
    plan.measured_step_ns = result->measured_mean_ns;
    // Every fix joins the plan: one that saves nothing alone may save much once another is in
    // (Tensor Cores once a CUDA graph lets the GPU set the pace).
    candidates.push_back({&finding, std::move(edits), finding.estimated_gain_ns_per_step});
  }
  // Where the replay models the trace, a gain that no replayed fix backs is not claimed: the
  // analyses' own estimates overlap one another and need not add up.
  if (plan.replayed_steps > 0 || replayed(context, {})) {
    for (Finding& finding : findings) {
      if (finding.gain_basis == GainBasis::kReplay || finding.estimated_gain_ns_per_step <= 0)
        continue;
      finding.estimated_gain_ns_per_step = 0;
      finding.gain_basis = GainBasis::kNone;
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.gain_ns > b.gain_ns; });
  std::vector<WhatIfEdit> applied;
  std::vector<const Finding*> applied_by;  // per fix applied, the finding it came from first
  double step_before = plan.measured_step_ns;
  for (const Candidate& candidate : candidates) {
    const auto same_fix = std::find_if(applied_by.begin(), applied_by.end(), [&](const auto* by) {
      return by->fix == candidate.finding->fix;
    });
    if (same_fix != applied_by.end()) {
      // Symptoms of one cause: the saving is the first finding's, claimed once.
      candidate.finding->gain_counted_under = (*same_fix)->kind;
      candidate.finding->estimated_gain_ns_per_step = 0;
      for (PlannedFix& fix : plan.fixes) {
        if (fix.edits == candidate.finding->fix) fix.kinds.push_back(candidate.finding->kind);
      }
      continue;
    }
    applied_by.push_back(candidate.finding);
    applied.insert(applied.end(), candidate.edits.begin(), candidate.edits.end());
    const std::optional<WhatIfResult> result = replayed(context, applied);
    if (!result) break;
    // Below this share of the step a saving is within the rounding of the replay: a fix that
    // saves no more alone or after the ones before it is left out of the plan.
    const double least = kLeastPlannedShare * plan.measured_step_ns;
    if (candidate.gain_ns <= least && step_before - result->predicted_mean_ns <= least) continue;
    plan.fixes.push_back({{candidate.finding->kind},
                          candidate.finding->title,
                          candidate.finding->fix,
                          candidate.gain_ns,
                          result->predicted_mean_ns});
    step_before = result->predicted_mean_ns;
  }
  return plan;
}

}  // namespace tscope::analyzer
