#pragma once
// What the cross-rank analysis keeps of one rank's trace: its identity from the metadata, each
// collective as a compact record, its steps and where their time goes, and its
// communication/compute overlap. A rank's trace is reduced to this and freed, so a multi-rank
// analysis holds one trace at a time plus a few dozen bytes per collective per rank.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/report.h"
#include "tscope/analyzer/steps.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

enum class CollectiveOp : std::uint8_t {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBarrier,
  kSendRecv,
  kOther,
};

// Kineto's spelling: "all_reduce", "all_gather", ...
std::string_view to_string(CollectiveOp op);
// From a span name ("nccl:all_reduce", "mpi:broadcast", "nccl:_all_gather_base") or Kineto's
// `Collective name` argument ("allreduce", "allgather_into_tensor_coalesced",
// "_reduce_scatter_base").
CollectiveOp collective_op_named(std::string_view name);

// One collective as one rank saw it (72 bytes).
struct CollectiveRecord {
  trace::TimeNs host_start = 0;  // the collective's host span
  trace::EventRef span;          // that span, for findings to point at
  trace::TimeNs arrival = 0;     // its GPU kernel's start when it has one, else host_start
  trace::TimeNs end = 0;         // its GPU kernel's end, else the host span's end
  std::int64_t seq = -1;         // per-group sequence number; -1 when the trace has none
  std::uint64_t bytes = 0;       // the message size nccl-tests' bandwidth uses; 0 when unknown
  std::uint32_t order = 0;       // index among this rank's collectives of the same group and op
  std::uint16_t group = 0;       // into RankSummary::groups
  std::uint16_t group_size = 0;  // 0 when the trace does not say
  CollectiveOp op = CollectiveOp::kOther;
  bool on_gpu = false;
  bool single_kernel = false;  // it launched one GPU kernel: `kernel`
  trace::EventRef kernel;      // the last GPU kernel it launched
  // Within the rank's steps: set-up collectives (the first parameter broadcast) wait for process
  // start-up, not for a straggler, and stay out of per-step waits.
  bool in_step = true;
};

// HTA's communication/compute overlap: of the time communication runs, the share during which
// compute runs too. On GPU traces both are kernels; on CPU traces communication is the
// collectives' host spans and compute the engine ops of the threads that run no collective.
struct OverlapTimes {
  double communication_ns = 0;  // union of communication time
  double compute_ns = 0;        // union of compute time
  double overlapped_ns = 0;     // time in both

  double share() const { return communication_ns > 0 ? overlapped_ns / communication_ns : 0; }
};

struct CommOverlap {
  bool gpu = false;
  // Over the whole trace, as HTA's include_last_profiler_step mode: the overlap figure reported.
  double communication_ns = 0;
  double compute_ns = 0;
  double overlapped_ns = 0;
  // The same within the steps (the whole trace when it has none): what exposed communication per
  // step is measured from.
  OverlapTimes in_steps;
  // The communication event within the steps that the most time of runs with no compute
  // alongside (a kernel on GPU traces, a collective's host span on CPU ones): what an exposed
  // communication finding points at.
  std::optional<trace::EventRef> longest_exposed;
  double longest_exposed_ns = 0;

  double share() const { return communication_ns > 0 ? overlapped_ns / communication_ns : 0; }
};

// One step's duration, for the per-rank step-time chart.
struct SampledStep {
  std::size_t index = 0;  // among the rank's steps
  double ns = 0;
};

// Every step up to this many; beyond, this many spread evenly over the run (the same indices on
// ranks with as many steps), so that a rank's summary stays small.
inline constexpr std::size_t kSampledSteps = 64;

struct RankSummary {
  std::string source;
  std::optional<int> rank;  // from the metadata (ours or Kineto's distributedInfo)
  std::optional<int> world_size;
  std::string host;
  std::string run_id;
  std::string backend;
  std::vector<std::string> groups;
  std::vector<CollectiveRecord> collectives;  // by host start
  StepSummary steps;
  std::vector<SampledStep> step_times;          // see kSampledSteps; none for a whole trace
  std::optional<trace::EventRef> slowest_step;  // the longest step's span
  TimeBreakdown time;                           // per mean step
  CommOverlap overlap;
};

// The collectives a trace holds: host spans named `<backend>:<op>` (`nccl:all_reduce`,
// `mpi:broadcast`, ...) or of category communication on host threads, with their arguments from
// the span or an enclosing Kineto `record_param_comms`, and the NCCL/RCCL kernels they launched.
std::vector<CollectiveRecord> find_collectives(const trace::Trace& trace,
                                               std::vector<std::string>& groups);
// The in-steps figures cover `steps` (the whole trace for a whole-trace step set).
CommOverlap compute_comm_overlap(const trace::Trace& trace, const StepSet& steps);

// The rank a trace records: our metadata's `rank`, else a process's (Kineto's distributedInfo).
// Throws AnalyzerError when the metadata's rank is not a number.
std::optional<int> trace_rank(const trace::Trace& trace, const std::string& source);

// Throws AnalyzerError when the step filter is invalid or selects nothing, or the metadata's rank
// or world size is not a number.
RankSummary summarize_rank(const trace::Trace& trace, std::string source,
                           const AnalysisOptions& options = {});

}  // namespace tscope::analyzer
