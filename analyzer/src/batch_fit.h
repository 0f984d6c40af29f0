#pragma once
// The largest batch that fits under a memory limit, from the steps of a trace: each step's peak
// of live bytes split into what scales with its batch and what does not, fitted as
// peak = fixed + per_sample x batch. Complete steps give the fit; a failed step (one an
// out-of-memory event cut short) gives only a lower bound on its peak, the live bytes at the
// failure plus the failing request, so a trace with failed steps alone bounds the batch from above.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory_replay.h"
#include "oom_events.h"
#include "tscope/analyzer/steps.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// One step's demand for memory.
struct StepDemand {
  std::string name;        // the step's name ("step 0")
  double batch = 0;        // the step span's batch_size
  bool failed = false;     // an out-of-memory event cut it short
  double peak_bytes = 0;   // complete: the peak of live bytes; failed: live bytes + the request
  double fixed_bytes = 0;  // the part of peak_bytes that does not scale with the batch
  // Input batches alive at the peak, and the most alive at any moment of the step: how many
  // batches the loader holds ready varies with its timing, so a fit counts the most.
  double input_bytes_at_peak = 0;
  double input_bytes_max = 0;
  // What a complete step allocated after its peak and still held when the next step ended (the
  // trace, for the last step): state every later step holds at its peak, such as the optimizer's
  // moments, which the first update makes after the first step's peak.
  double state_made_after_peak = 0;
  // Retried under its name without an out-of-memory event inside: cut short by a failure from
  // another thread, so only its input batches count (for how many the loader holds ready).
  bool cut_short = false;
};

struct BatchFit {
  bool is_bound = false;  // no complete step: the batch found is an upper bound, not a fit
  double fixed_bytes = 0;
  double per_sample_bytes = 0;
  double limit_bytes = 0;
  std::int64_t largest_batch = 0;  // 0 when the fixed part alone reaches the limit
  std::size_t complete_steps = 0;
  std::size_t failed_steps = 0;
  std::string derivation;  // one sentence on how fixed and per-sample bytes were found
};

// Per step with a batch_size, its demand; `order` is trace::MemoryOrder(trace), `ooms` in time
// order.
std::vector<StepDemand> step_demands(const trace::Trace& trace, const trace::MemoryOrder& order,
                                     const StepSet& steps, const std::vector<OomEvent>& ooms);

// The fit under `limit_bytes`, or nothing when no step says its batch size.
std::optional<BatchFit> fit_largest_batch(const std::vector<StepDemand>& demands,
                                          double limit_bytes);

}  // namespace tscope::analyzer
