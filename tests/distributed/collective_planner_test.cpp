// The backend-independent half of every collective: argument checks that refuse a bad call
// before anything is sent, the sequence numbers every rank agrees on, and the names the trace
// uses (Kineto's). NCCL groups plan their collectives the same way, so this is their CPU side too.

#include <gtest/gtest.h>

#include "tscope/engine/distributed/collective.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::distributed {
namespace {

TEST(CollectivePlanner, NumbersCollectivesFromOneInTheOrderTheyArePlanned) {
  CollectivePlanner planner(Backend::kMpi, 1, 2);
  EXPECT_EQ(planner.last_sequence(), 0);
  const Tensor tensor = zeros({4});
  EXPECT_EQ(planner.all_reduce(tensor, ReduceOp::kSum, false).sequence, 1);
  EXPECT_EQ(planner.broadcast(tensor, 0, true).sequence, 2);
  EXPECT_EQ(planner.barrier(false).sequence, 3);
  EXPECT_EQ(planner.last_sequence(), 3);
}

TEST(CollectivePlanner, RefusedCallsTakeNoSequenceNumber) {
  CollectivePlanner planner(Backend::kMpi, 0, 2);
  EXPECT_THROW(planner.broadcast(zeros({4}), 2, false), DistributedError);
  EXPECT_EQ(planner.all_reduce(zeros({4}), ReduceOp::kSum, false).sequence, 1);
}

TEST(CollectivePlanner, DescribesSizesInElementsAndInputBytes) {
  CollectivePlanner planner(Backend::kMpi, 0, 2);
  const CollectiveCall gather = planner.all_gather(zeros({6}), zeros({3}), true);
  EXPECT_EQ(gather.in_elements, 3);
  EXPECT_EQ(gather.out_elements, 6);
  EXPECT_EQ(gather.in_bytes, 12);
  EXPECT_TRUE(gather.async);
  const CollectiveCall scatter =
      planner.reduce_scatter(zeros({2}, {.dtype = DType::kInt64}),
                             zeros({4}, {.dtype = DType::kInt64}), ReduceOp::kSum, false);
  EXPECT_EQ(scatter.in_elements, 4);
  EXPECT_EQ(scatter.out_elements, 2);
  EXPECT_EQ(scatter.in_bytes, 32);
  EXPECT_EQ(scatter.dtype, DType::kInt64);
}

TEST(CollectivePlanner, NcclRefusesAHostTensorNamingTheDevice) {
  CollectivePlanner planner(Backend::kNccl, 0, 2);
  try {
    planner.all_reduce(zeros({2}), ReduceOp::kSum, false);
    FAIL() << "a CPU tensor was accepted by the NCCL backend";
  } catch (const DistributedError& error) {
    EXPECT_NE(std::string(error.what()).find("is on cpu, but the nccl backend takes CUDA tensors"),
              std::string::npos)
        << error.what();
  }
}

TEST(CollectivePlanner, AllGatherNeedsWorldSizeTimesTheInput) {
  CollectivePlanner planner(Backend::kMpi, 0, 3);
  EXPECT_THROW(planner.all_gather(zeros({6}), zeros({3}), false), DistributedError);
  EXPECT_THROW(planner.all_gather(zeros({9}, {.dtype = DType::kInt64}), zeros({3}), false),
               DistributedError);
  EXPECT_NO_THROW(planner.all_gather(zeros({9}), zeros({3}), false));
}

TEST(CollectivePlanner, ReduceScatterNeedsAnInputOfWorldSizeBlocks) {
  CollectivePlanner planner(Backend::kMpi, 0, 2);
  EXPECT_THROW(planner.reduce_scatter(zeros({2}), zeros({5}), ReduceOp::kSum, false),
               DistributedError);
}

TEST(CollectivePlanner, AnAverageNeedsFloatTensors) {
  CollectivePlanner planner(Backend::kMpi, 0, 2);
  EXPECT_THROW(planner.all_reduce(zeros({2}, {.dtype = DType::kInt64}), ReduceOp::kAverage, false),
               DistributedError);
}

TEST(CollectivePlanner, RefusesViewsThatAreNotContiguous) {
  CollectivePlanner planner(Backend::kMpi, 0, 2);
  EXPECT_THROW(planner.all_reduce(zeros({3, 2}).transpose(0, 1), ReduceOp::kSum, false),
               DistributedError);
}

TEST(CollectivePlanner, RefusesARankOutsideTheWorld) {
  EXPECT_THROW(CollectivePlanner(Backend::kMpi, 2, 2), DistributedError);
  EXPECT_THROW(CollectivePlanner(Backend::kMpi, 0, 0), DistributedError);
}

TEST(CollectiveNames, FollowKinetosSpelling) {
  EXPECT_EQ(collective_span_name(Backend::kMpi, Collective::kAllReduce), "mpi:all_reduce");
  EXPECT_EQ(collective_span_name(Backend::kNccl, Collective::kReduceScatter),
            "nccl:reduce_scatter");
  EXPECT_EQ(wait_span_name(Collective::kAllGather), "wait:all_gather");
  EXPECT_EQ(kineto_collective_name(Collective::kAllReduce), "allreduce");
  EXPECT_EQ(kineto_collective_name(Collective::kAllGather), "allgather");
  EXPECT_EQ(kineto_dtype_name(DType::kFloat32), "Float");
  EXPECT_EQ(kineto_dtype_name(DType::kInt64), "Long");
}

}  // namespace
}  // namespace tscope::engine::distributed
