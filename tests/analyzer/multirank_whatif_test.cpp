// The multi-rank what-if on synthetic data-parallel runs whose answers are known by construction:
// the coupled replay reproduces every rank's steps, removing a straggler's extra work shortens
// every rank's step to what the collectives then allow, clock offsets between hosts drop out, and
// bad requests are refused with a message; and on the real two-rank Kineto pair of ../shared the
// replay coupled at its NCCL kernels reproduces both ranks' steps.

#include "tscope/analyzer/multirank_whatif.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "shared_trace.h"
#include "synthetic_ranks.h"
#include "tscope/analyzer/errors.h"
#include "tscope/trace/trace_io.h"

namespace tscope::analyzer {
namespace {

constexpr double kMs = 1e6;

// Two ranks, 6 ms of compute, a 1 ms all-reduce; rank 1 does 5 ms of extra host work first.
testing::SyntheticRun straggler_run() {
  testing::SyntheticRun run;
  run.world_size = 2;
  run.steps = 4;
  run.slow_rank = 1;
  run.slow_ns = 5'000'000;
  run.jitter_ns = 0;
  run.queue_flows = true;
  return run;
}

MultiRankWhatIfResult predict(const std::vector<trace::Trace>& traces,
                              const std::vector<std::string>& texts) {
  std::vector<WhatIfEdit> edits;
  edits.reserve(texts.size());
  for (const std::string& text : texts)
    edits.push_back(parse_edit(text));
  std::vector<std::unique_ptr<AnalysisContext>> contexts;
  std::vector<RankInput> ranks;
  ranks.reserve(traces.size());
  for (std::size_t r = 0; r < traces.size(); ++r) {
    contexts.push_back(std::make_unique<AnalysisContext>(traces[r], AnalysisOptions{}));
    ranks.push_back({contexts.back().get(), "rank" + std::to_string(r) + ".tsc"});
  }
  return predict_rank_steps(ranks, edits);
}

std::vector<trace::Trace> traces_of(const testing::SyntheticRun& run) {
  std::vector<trace::Trace> traces;
  traces.reserve(static_cast<std::size_t>(run.world_size));
  for (int rank = 0; rank < run.world_size; ++rank)
    traces.push_back(run.rank_trace(rank));
  return traces;
}

TEST(MultiRankWhatIfTest, ReplayWithoutEditsReproducesEveryRank) {
  const MultiRankWhatIfResult result = predict(traces_of(straggler_run()), {});
  ASSERT_EQ(result.ranks.size(), 2u);
  EXPECT_EQ(result.coupled_collectives, 4u);
  EXPECT_EQ(result.uncoupled_collectives, 0u);
  for (const RankWhatIf& rank : result.ranks) {
    EXPECT_EQ(rank.result.replayed_steps, 4u);
    EXPECT_EQ(rank.result.replay_error_max, 0);
    // 6 ms compute, 5 ms waiting for rank 1, 1 ms transfer, 0.1 ms of the step's own.
    EXPECT_NEAR(rank.result.measured_mean_ns, 12.1 * kMs, 1);
    EXPECT_NEAR(rank.result.predicted_mean_ns, 12.1 * kMs, 1);
  }
  EXPECT_EQ(result.ranks[1].rank, 1);
}

TEST(MultiRankWhatIfTest, RemovingTheStragglersWorkShortensEveryRanksStep) {
  // Both ranks queue at 6 ms, start at 6.001 ms and finish the transfer 0.999 ms later (its
  // measured end less the last arrival); the step's own 0.1 ms follows: 7.1 ms on each rank.
  const MultiRankWhatIfResult result =
      predict(traces_of(straggler_run()), {"op:extra host work*0"});
  EXPECT_EQ(result.matches[0], 4u);  // rank 1's four; rank 0 has none
  for (const RankWhatIf& rank : result.ranks)
    EXPECT_NEAR(rank.result.predicted_mean_ns, 7.1 * kMs, 1) << rank.source;
}

TEST(MultiRankWhatIfTest, HalvingTheStragglersWorkHalvesEveryRanksWait) {
  const MultiRankWhatIfResult result =
      predict(traces_of(straggler_run()), {"op:extra host work*0.5"});
  for (const RankWhatIf& rank : result.ranks)
    EXPECT_NEAR(rank.result.predicted_mean_ns, 9.6 * kMs, 1) << rank.source;
}

TEST(MultiRankWhatIfTest, WorkOfARankThatWaitsAnywayDoesNotMoveTheSteps) {
  // Rank 0's compute is hidden by its wait for rank 1: halving matmul on every rank saves only
  // rank 1's 3 ms, which both ranks see.
  const MultiRankWhatIfResult result = predict(traces_of(straggler_run()), {"op:^matmul$*0.5"});
  for (const RankWhatIf& rank : result.ranks)
    EXPECT_NEAR(rank.result.predicted_mean_ns, 9.1 * kMs, 1) << rank.source;
}

TEST(MultiRankWhatIfTest, ClockOffsetsBetweenHostsDropOut) {
  testing::SyntheticRun run = straggler_run();
  run.hosts = {"node0", "node1"};
  run.clock_offsets = {0, 3'000'000};
  const MultiRankWhatIfResult result = predict(traces_of(run), {"op:extra host work*0"});
  EXPECT_NEAR(result.ranks[1].clock_offset_ns, 3e6, 1);
  for (const RankWhatIf& rank : result.ranks)
    EXPECT_NEAR(rank.result.predicted_mean_ns, 7.1 * kMs, 1) << rank.source;
}

TEST(MultiRankWhatIfTest, RefusesEditsThatMatchNoRankAndFewerThanTwoRanks) {
  EXPECT_THROW(predict(traces_of(straggler_run()), {"op:no such op*0"}), AnalyzerError);
  std::vector<trace::Trace> one;
  one.push_back(straggler_run().rank_trace(0));
  EXPECT_THROW(predict(one, {}), AnalyzerError);
}

TEST(MultiRankWhatIfRealTraceTest, SampledRankPairReplaysCoupledAtItsNcclKernels) {
  std::vector<trace::Trace> traces;
  for (const char* name : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"}) {
    const auto path = testing::shared_data_path(std::string("traces/multirank/") + name);
    TSCOPE_REQUIRE_FILE(path);
    traces.push_back(trace::load_trace(path));
  }
  const MultiRankWhatIfResult result = predict(traces, {});
  // Each NCCL collective of the steps launched one kernel: all are coupled.
  EXPECT_GT(result.coupled_collectives, 0u);
  EXPECT_EQ(result.uncoupled_collectives, 0u);
  for (const RankWhatIf& rank : result.ranks) {
    EXPECT_EQ(rank.result.replayed_steps, 2u) << rank.source;
    // Within a microsecond of 0.6 s steps: the clock alignment's median offset is fractional.
    EXPECT_LE(rank.result.replay_error_max, 1e-6) << rank.source;
  }
}

}  // namespace
}  // namespace tscope::analyzer
