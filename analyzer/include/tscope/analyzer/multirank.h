#pragma once
// Analysis of a distributed run from one trace per rank: each rank is reduced on its own (in
// parallel, one trace in memory per worker) to a RankSummary, then one cross-rank pass aligns the
// clocks, matches the collectives, and finds skew, waits, bandwidth, stragglers, imbalance and
// exposed communication. What `tscope analyze` renders for several traces or a folder.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/finding.h"
#include "tscope/analyzer/rank_summary.h"

namespace tscope::analyzer {

// A set of traces that is not one run: different runs or world sizes mixed, two traces of one rank.
class RankSetError : public AnalyzerError {
 public:
  using AnalyzerError::AnalyzerError;
};

struct RankReport {
  int rank = 0;
  std::string source;
  std::string host;
  StepSummary steps;
  std::vector<SampledStep> step_times;          // RankSummary::step_times
  std::optional<trace::EventRef> slowest_step;  // into this rank's trace, as the refs below
  TimeBreakdown time;
  CommOverlap overlap;
  std::size_t collectives = 0;
  double clock_offset_ns = 0;       // subtracted from the rank's times to align it
  double clock_uncertainty_ns = 0;  // median absolute deviation of the estimate
  bool clock_reference = false;     // the lowest rank, whose clock the others align to
  bool offset_estimated = false;    // false: shares the reference rank's host clock
  std::size_t last_arrivals = 0;    // collectives within steps it reached last
  double wait_ns_per_step = 0;      // waiting in collectives within steps for later ranks
  // What the other ranks, on average, wait for this one per step, at the collectives it is last at.
  double others_wait_ns_per_step = 0;
  // Of the collectives within steps it reached last, the one with the largest skew (its host
  // span): where the others waited longest for it.
  std::optional<trace::EventRef> latest_arrival;
  double latest_arrival_skew_ns = 0;
};

// One collective matched across ranks, after clock alignment.
struct MatchedCollective {
  std::string group;
  CollectiveOp op = CollectiveOp::kOther;
  std::int64_t seq = -1;  // -1 when matched by order
  std::uint32_t order = 0;
  std::size_t ranks = 0;
  int last_rank = 0;
  double skew_ns = 0;      // last arrival minus first
  double transfer_ns = 0;  // last end minus last arrival
  std::uint64_t bytes = 0;
  double bus_bandwidth = 0;  // bytes per second; 0 when the size is unknown
};

// Matched collectives of one group and op, summarised.
struct CollectiveGroupStats {
  std::string group;
  CollectiveOp op = CollectiveOp::kOther;
  std::size_t count = 0;
  double mean_skew_ns = 0;
  double max_skew_ns = 0;
  double mean_transfer_ns = 0;
  double mean_bus_bandwidth = 0;  // over those with a known size
};

struct StepImbalance {
  double min_ns = 0;
  double median_ns = 0;
  double max_ns = 0;
};

struct MultiRankReport {
  std::size_t world_size = 0;
  std::vector<int> absent_ranks;
  std::string run_id;
  std::string backend;
  std::vector<RankReport> ranks;          // by rank
  bool matched_by_seq = false;            // every group had sequence numbers
  std::size_t unmatched_collectives = 0;  // keys not seen on every rank that has their group
  std::vector<MatchedCollective> collectives;
  std::vector<CollectiveGroupStats> collective_groups;
  StepImbalance step_time;
  std::vector<Finding> findings;  // most costly first
};

// NCCL's bus bandwidth (nccl-tests doc/PERFORMANCE.md) from the algorithm bandwidth
// bytes / seconds over `ranks` ranks: all_reduce x 2(n-1)/n, all_gather and reduce_scatter
// x (n-1)/n, broadcast and reduce x 1; 0 for collectives it does not define.
double bus_bandwidth(CollectiveOp op, double bytes, double seconds, std::size_t ranks);

// The trace files `inputs` name: files as given, folders expanded to the traces they hold
// (.tsc, .json, .json.gz, .sqlite), by name. Throws AnalyzerError for a folder without traces.
std::vector<std::filesystem::path> list_trace_files(
    const std::vector<std::filesystem::path>& inputs);

// Loads and reduces each file, up to `jobs` at a time (0: one per core), in the order given.
// Rethrows the first load or analysis error.
std::vector<RankSummary> summarize_trace_files(const std::vector<std::filesystem::path>& files,
                                               const AnalysisOptions& options, unsigned jobs = 0);

// The cross-rank pass. Throws RankSetError for traces of different runs (run_id, world_size),
// duplicate ranks, a rank outside the world size, or some traces with a rank and some without.
MultiRankReport analyze_ranks(std::vector<RankSummary> summaries);

}  // namespace tscope::analyzer
