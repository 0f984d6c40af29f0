#include "tscope/analyzer/whatif.h"

#include <algorithm>
#include <cmath>

#include "order_statistics.h"
#include "simulated_run.h"
#include "step_replay.h"
#include "tscope/analyzer/errors.h"
#include "whatif_edits.h"

namespace tscope::analyzer {

WhatIfResult predict_steps(const AnalysisContext& context, std::span<const WhatIfEdit> edits,
                           const WhatIfOptions& options) {
  if (context.steps().whole_trace && !options.whole_trace_as_step) {
    throw AnalyzerError(
        "the trace has no step ranges (ProfilerStep#N, step N, ...): a what-if replays steps");
  }
  ResolvedEdits resolved(context.trace(), edits);
  WhatIfResult result;
  result.matches = resolved.matches();
  for (std::size_t e = 0; e < edits.size(); ++e) {
    if (result.matches[e] == 0)
      throw AnalyzerError("--edit '" + edits[e].text + "' matches no event of the trace");
  }
  StepReplay replay(context, resolved);
  std::optional<SimulatedRun> simulated;
  if (options.keep_simulated_trace) simulated.emplace(context.trace());
  std::vector<double> errors;
  for (std::size_t index = 0; index < context.steps().steps.size(); ++index) {
    const Step& step = context.steps().steps[index];
    const ReplayedStep replayed = replay.replay(index);
    result.steps.push_back({step.name, replayed.measured_ns, replayed.predicted_ns,
                            replayed.replayed_ns, replayed.replayed, replayed.why_not});
    if (!replayed.replayed) continue;
    if (simulated) simulated->add_step(step, replay, replayed.predicted_ns);
    ++result.replayed_steps;
    result.measured_mean_ns += replayed.measured_ns;
    result.predicted_mean_ns += replayed.predicted_ns;
    if (replayed.measured_ns > 0)
      errors.push_back(std::abs(replayed.replayed_ns - replayed.measured_ns) /
                       replayed.measured_ns);
  }
  if (result.replayed_steps > 0) {
    result.measured_mean_ns /= static_cast<double>(result.replayed_steps);
    result.predicted_mean_ns /= static_cast<double>(result.replayed_steps);
  }
  if (simulated) result.simulated = simulated->finish(edits);
  if (!errors.empty()) {
    result.replay_error_max = *std::max_element(errors.begin(), errors.end());
    result.replay_error_median = median(std::move(errors));
  }
  return result;
}

}  // namespace tscope::analyzer
