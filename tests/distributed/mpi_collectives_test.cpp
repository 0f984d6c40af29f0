// The MPI backend's collectives on two ranks (CTest starts this binary under mpirun -np 2): each
// result against what the two ranks' inputs make it, blocking and asynchronous.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "mpi_group.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::distributed {
namespace {

// Rank r's tensor: {r + 1, 10 (r + 1), ...}.
Tensor rank_values(int rank, std::int64_t count) {
  std::vector<float> values;
  for (std::int64_t i = 0; i < count; ++i) {
    values.push_back(static_cast<float>((rank + 1) * (i == 0 ? 1 : 10 * i)));
  }
  return from_vector(values, {count});
}

TEST(MpiCollectives, AllReduceSumsOverRanks) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor tensor = rank_values(group.rank(), 3);
  group.all_reduce(tensor);
  EXPECT_EQ(tensor.to_vector<float>(), (std::vector<float>{3, 30, 60}));
}

TEST(MpiCollectives, AllReduceAverages) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor tensor = rank_values(group.rank(), 3);
  group.all_reduce(tensor, ReduceOp::kAverage);
  EXPECT_EQ(tensor.to_vector<float>(), (std::vector<float>{1.5f, 15, 30}));
}

TEST(MpiCollectives, AllReduceSumsInt64) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const std::int64_t big = std::int64_t{1} << 40;
  const Tensor tensor = from_vector(std::vector<std::int64_t>{big + group.rank(), -1}, {2});
  group.all_reduce(tensor);
  EXPECT_EQ(tensor.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2 * big + 1, -2}));
}

TEST(MpiCollectives, BroadcastCopiesTheRootsTensor) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor tensor = rank_values(group.rank(), 2);
  group.broadcast(tensor, 1);
  EXPECT_EQ(tensor.to_vector<float>(), (std::vector<float>{2, 20}));
}

TEST(MpiCollectives, AllGatherConcatenatesInRankOrder) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor output = zeros({4});
  group.all_gather(output, rank_values(group.rank(), 2));
  EXPECT_EQ(output.to_vector<float>(), (std::vector<float>{1, 10, 2, 20}));
}

TEST(MpiCollectives, ReduceScatterGivesEachRankItsReducedBlock) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor output = zeros({2});
  // Both blocks of rank r are {r + 1, 10 (r + 1)} and {20 (r + 1), 30 (r + 1)}.
  group.reduce_scatter(output, rank_values(group.rank(), 4));
  const std::vector<float> expected =
      group.rank() == 0 ? std::vector<float>{3, 30} : std::vector<float>{60, 90};
  EXPECT_EQ(output.to_vector<float>(), expected);
}

TEST(MpiCollectives, BarrierHoldsEveryRankUntilTheLastArrives) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  group.barrier();
  const auto start = std::chrono::steady_clock::now();
  if (group.rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  group.barrier();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(150));
}

TEST(MpiCollectives, AsynchronousWorkCompletesWhileTheCallerComputes) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor tensor = rank_values(group.rank(), 1000);
  // Rank 1 arrives late, so rank 0's call must return before the data is there.
  if (group.rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto before = std::chrono::steady_clock::now();
  Work work = group.all_reduce_async(tensor);
  const auto returned = std::chrono::steady_clock::now() - before;
  if (group.rank() == 0) {
    EXPECT_LT(returned, std::chrono::milliseconds(100));
    EXPECT_FALSE(work.completed());
  }
  work.wait();
  EXPECT_TRUE(work.completed());
  EXPECT_EQ(tensor.to_vector<float>()[999], 3 * 9990.0f);
  work.wait();
}

TEST(MpiCollectives, AsynchronousCollectivesRunInTheOrderTheyWereStarted) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const Tensor first = rank_values(group.rank(), 2);
  const Tensor second = rank_values(group.rank(), 2);
  Work reduce = group.all_reduce_async(first);
  Work gather = group.broadcast_async(second, 0);
  Work barrier = group.barrier_async();
  barrier.wait();
  gather.wait();
  reduce.wait();
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{3, 30}));
  EXPECT_EQ(second.to_vector<float>(), (std::vector<float>{1, 10}));
}

TEST(MpiCollectives, SequenceNumbersAgreeAcrossRanks) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  group.barrier();
  const Tensor sequences = zeros({2}, {.dtype = DType::kInt64});
  group.all_gather(sequences, from_vector(std::vector<std::int64_t>{group.last_sequence()}, {1}));
  const auto both = sequences.to_vector<std::int64_t>();
  EXPECT_EQ(both[0], both[1]);
  EXPECT_GT(both[0], 0);
}

TEST(MpiCollectives, RanksAgreeOnTheRunId) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  ASSERT_FALSE(group.run_id().empty());
  const auto length = static_cast<std::int64_t>(group.run_id().size());
  std::vector<std::int64_t> characters(group.run_id().begin(), group.run_id().end());
  const Tensor gathered = zeros({2 * length}, {.dtype = DType::kInt64});
  group.all_gather(gathered, from_vector(characters, {length}));
  const auto both = gathered.to_vector<std::int64_t>();
  EXPECT_TRUE(std::equal(both.begin(), both.begin() + length, both.begin() + length));
  EXPECT_EQ(group.local_rank(), group.rank()) << "both ranks run on this host";
}

TEST(MpiCollectives, AHostGroupRefusesMismatchedSizesBeforeSendingAnything) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const std::int64_t before = group.last_sequence();
  EXPECT_THROW(group.all_gather(zeros({3}), zeros({2})), DistributedError);
  EXPECT_THROW(group.all_reduce_async(zeros({2}, {.dtype = DType::kInt64}), ReduceOp::kAverage),
               DistributedError);
  EXPECT_EQ(group.last_sequence(), before);
  // The group still works: nothing half-started is left for the other rank.
  const Tensor tensor = rank_values(group.rank(), 1);
  group.all_reduce(tensor);
  EXPECT_EQ(tensor.item<float>(), 3.0f);
}

}  // namespace
}  // namespace tscope::engine::distributed
