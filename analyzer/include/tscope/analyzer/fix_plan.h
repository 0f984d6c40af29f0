#pragma once
// Findings' gains from the step model: each finding whose fix the what-if replay models
// (Finding::fix) gets as its gain the replayed saving of that fix alone, and the fix plan applies
// those fixes one after another, most gain first, with the predicted step after each, so that
// findings that describe one lost stretch of time show as such (the second fix gains little once
// the first is in).

#include <cstddef>
#include <string>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

// One fix, and every finding it answers: findings whose fixes are the same edits are symptoms of
// one cause.
struct PlannedFix {
  std::vector<std::string> kinds;  // of the findings, most gain first
  std::string title;               // of the first of them
  std::vector<std::string> edits;
  double gain_alone_ns = 0;  // per mean step, this fix alone
  double step_after_ns = 0;  // predicted mean step with this fix and every one before it
};

struct FixPlan {
  std::size_t replayed_steps = 0;
  double measured_step_ns = 0;  // mean over the replayed steps
  std::vector<PlannedFix> fixes;
};

// Replaces the gain of each finding with a fix by its replayed saving (GainBasis::kReplay), and
// where the replay models the trace, claims no time gain for the findings without a fix it
// models (GainBasis::kNone); returns the plan of the fixes that save time. A trace without step
// ranges is replayed as one step, as `tscope analyze` counts it.
FixPlan plan_fixes(const AnalysisContext& context, std::vector<Finding>& findings);

}  // namespace tscope::analyzer
