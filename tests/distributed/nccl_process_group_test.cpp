// The NCCL backend on a GPU, as a world of one: its collectives' results, its communication
// ranges in a trace, and a CPU tensor refused. Skipped without a CUDA device.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "trace_queries.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/distributed/errors.h"
#include "tscope/engine/distributed/process_group.h"
#include "tscope/engine/factories.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::engine::distributed {
namespace {

#define TSCOPE_REQUIRE_GPU()                                                                \
  do {                                                                                      \
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cuda_unavailable_reason(); \
  } while (0)

TEST(NcclGroup, AWorldOfOneReducesBroadcastsAndGathersOnTheGpu) {
  TSCOPE_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  const auto group = make_nccl_process_group(gpu);
  EXPECT_EQ(group->world_size(), 1);
  EXPECT_EQ(group->backend(), Backend::kNccl);
  const Tensor values = from_vector(std::vector<float>{1, 2, 3}, {3}).to(gpu);
  group->all_reduce(values);
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Work average = group->all_reduce_async(values, ReduceOp::kAverage);
  average.wait();
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  const Tensor gathered = zeros({3}, {.device = gpu});
  group->all_gather(gathered, values);
  EXPECT_EQ(gathered.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  group->barrier();
  EXPECT_THROW(group->all_reduce(zeros({3})), DistributedError);
}

TEST(NcclGroup, CollectivesAreRecordedAsNcclCommunicationRanges) {
  TSCOPE_REQUIRE_GPU();
  const auto path = testing::temporary_trace_path();
  {
    profiler::Session session({.output = path});
    session.start();
    const auto group = make_nccl_process_group(Device::cuda(0));
    group->all_reduce(ones({1024}, {.device = Device::cuda(0)}));
    session.stop();
  }
  const trace::Trace recorded = trace::load_trace(path);
  const auto reduces = testing::spans_named(recorded, "nccl:all_reduce");
  ASSERT_EQ(reduces.size(), 1u);
  EXPECT_EQ(testing::span_arg(recorded, reduces[0], "In msg nelems"), "1024");
  EXPECT_EQ(testing::span_arg(recorded, reduces[0], "Seq"), "2");  // after the run id's broadcast
  EXPECT_EQ(recorded.metadata().values.at("backend"), "nccl");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope::engine::distributed
