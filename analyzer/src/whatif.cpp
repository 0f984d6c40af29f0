#include "tscope/analyzer/whatif.h"

#include <fmt/format.h>

#include "cpu_contention.h"
#include "simulated_run.h"
#include "step_replay.h"
#include "tscope/analyzer/errors.h"
#include "whatif_edits.h"
#include "whatif_result.h"

namespace tscope::analyzer {
namespace {

// workers=N beyond the CPUs the trace records: they would only share them.
void refuse_more_workers_than_cpus(const AnalysisContext& context,
                                   std::span<const WhatIfEdit> edits) {
  for (const WhatIfEdit& edit : edits) {
    if (edit.target != EditTarget::kLoaderWorkers) continue;
    const CpuContention& contention = context.cpu_contention();
    if (contention.modelled() && edit.factor > contention.cpus()) {
      throw AnalyzerError(fmt::format(
          "--edit '{}': the trace's host has {} CPUs; more loader workers would share them",
          edit.text, contention.cpus()));
    }
  }
}

}  // namespace

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
  refuse_more_workers_than_cpus(context, edits);
  StepReplay replay(context, resolved);
  std::optional<SimulatedRun> simulated;
  if (options.keep_simulated_trace) simulated.emplace(context.trace());
  WhatIfTally tally(result);
  for (std::size_t index = 0; index < context.steps().steps.size(); ++index) {
    const Step& step = context.steps().steps[index];
    const ReplayedStep replayed = replay.replay(index);
    tally.add(step, replayed);
    if (replayed.replayed && simulated) simulated->add_step(step, replay, replayed.predicted_ns);
  }
  tally.finish();
  if (simulated) result.simulated = simulated->finish(edits);
  return result;
}

}  // namespace tscope::analyzer
