#pragma once
// What-if replay: each step's host-GPU dependency graph (the one the critical path walks) replayed
// as a discrete-event simulation, with the measured run's work and latencies, and with edits a
// user would try (ops or kernels made faster, the wait for input or a synchronization removed),
// to predict the step time that fix would give. Without edits the replay reproduces each step.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

// What an edit changes.
enum class EditTarget : std::uint8_t {
  kSpan,       // ops and kernels named by the pattern: `NAME*F`
  kOp,         // host ops, API calls and other host ranges, with what runs inside them: `op:NAME*F`
  kKernel,     // GPU kernels, copies and memsets: `kernel:NAME*F`
  kInputWait,  // the host's waits for input batches: `input-wait*F`
  kRemoveSync,  // synchronizing calls that no longer wait for the GPU: `remove-sync:NAME`
  // Host spans captured as one CUDA graph: the host work inside them (operators, launch calls)
  // takes no time, while their waits for input and for the GPU stay: `graph-launch:NAME`.
  kGraphLaunch,
  // Runs of consecutive spans on one track (a stream's GPU activities, a host thread's ops at one
  // depth) named NAME1, NAME2, ... in order, replaced by one that takes F of their summed time:
  // the later members and their launches take no time. `fuse:NAME1>NAME2>...*F`.
  kFuse,
  // The data loader run on N worker threads: the waits for input go, and each step takes at least
  // the time N workers need to load its batch, sharing the host's CPUs with the training thread
  // (the trace's load times and CPU count; refused beyond the CPUs the trace records).
  // `workers=N`.
  kLoaderWorkers,
};

struct WhatIfEdit {
  std::string text;  // as the user wrote it
  EditTarget target = EditTarget::kSpan;
  std::string pattern;             // a regular expression found in names; empty for kInputWait
  double factor = 1;               // the time the matched work takes, as a share of the measured
                                   // (kLoaderWorkers: the worker count)
  std::vector<std::string> chain;  // kFuse: one regular expression per member, in order
};

// Parses one edit (the forms above; NAME is a regular expression searched in names, F a factor
// >= 0). Throws AnalyzerError naming the edit when it is malformed.
WhatIfEdit parse_edit(std::string_view text);

// The `fuse:` edit of a chain of exactly these names whose fused form takes `factor` of their time.
std::string fuse_edit(std::span<const std::string> names, double factor);
// A NAME for an edit that matches exactly these names, each taken literally.
std::string exact_names_pattern(std::span<const std::string> names);
// A NAME for an edit that matches the steps' names, with each run of digits in them matching any
// number ("ProfilerStep#5" gives ^ProfilerStep#\d+$); for the whole trace as one step, any name.
std::string step_names_pattern(const StepSet& steps);

// One step, as measured and as replayed.
struct StepPrediction {
  std::string name;
  double measured_ns = 0;
  double predicted_ns = 0;  // the replay of the measured run with the edits
  double replayed_ns = 0;   // the replay without edits, which should equal measured_ns
  bool replayed = false;    // false: left out of every figure, `why_not` says why
  std::string why_not;
};

struct WhatIfResult {
  std::vector<StepPrediction> steps;
  std::vector<std::size_t> matches;  // per edit: the events it changed, over the whole trace
  // Over the replayed steps only.
  std::size_t replayed_steps = 0;
  double measured_mean_ns = 0;
  double predicted_mean_ns = 0;
  double replay_error_median = 0;  // |replayed - measured| / measured
  double replay_error_max = 0;
  // The simulated run as a trace (when asked for): the replayed steps' spans at their predicted
  // times, back to back; instants, counters and memory events left out.
  std::optional<trace::Trace> simulated;
};

struct WhatIfOptions {
  bool keep_simulated_trace = false;  // WhatIfResult::simulated
  // A trace without step ranges is replayed as one step, from its start to where the main
  // thread's and the GPU's work last ends; without this it is refused.
  bool whole_trace_as_step = false;
};

// Replays every step of the context with `edits` applied together. Throws AnalyzerError when an
// edit matches no event of the trace, or when the trace has no step ranges to replay (unless
// options.whole_trace_as_step).
WhatIfResult predict_steps(const AnalysisContext& context, std::span<const WhatIfEdit> edits,
                           const WhatIfOptions& options = {});

// The prediction for people: the edits, each step measured and predicted, the mean, and the steps
// left out with the reason.
std::string render_whatif_text(const WhatIfResult& result, std::span<const WhatIfEdit> edits);
// The same as JSON for scripts and CI (schema "tscope.whatif/1").
std::string render_whatif_json(const WhatIfResult& result, std::span<const WhatIfEdit> edits);

}  // namespace tscope::analyzer
