// The one time order of every pool's memory events that the analyses and the viewer walk.

#include "tscope/trace/memory_order.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "tscope/trace/trace_builder.h"

namespace tscope::trace {
namespace {

using Step = std::tuple<TimeNs, std::uint32_t, std::uint32_t>;

std::vector<Step> steps_of(const MemoryOrder& order) {
  std::vector<Step> steps;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const MemoryStep step = order.at(position);
    steps.emplace_back(step.time, step.track, step.index);
  }
  return steps;
}

class MemoryOrderTest : public ::testing::Test {
 protected:
  std::uint32_t add_pool(const char* name) {
    if (process_ == kNoIndex)
      process_ = builder_.add_process({1, builder_.intern("train"), kEmptyString, -1, 0});
    return builder_.add_track({TrackKind::kMemoryPool, builder_.intern(name), process_, -1, 0, -1,
                               static_cast<std::int32_t>(pools_++)});
  }
  void alloc(std::uint32_t pool, TimeNs time) {
    builder_.add_memory_event(
        pool, {time, MemoryAction::kAlloc, 0x1000, 64, 0, kEmptyString, kEmptyString, 64, 64});
  }

  TraceBuilder builder_;
  std::uint32_t process_ = kNoIndex;
  int pools_ = 0;
};

TEST_F(MemoryOrderTest, PoolsMergeByTimeAndSameTimeEventsKeepPoolThenRecordedOrder) {
  const std::uint32_t host = add_pool("host memory");
  const std::uint32_t device = add_pool("GPU 0 memory");
  alloc(device, 10);
  alloc(host, 20);
  alloc(host, 10);
  alloc(device, 20);
  alloc(device, 5);
  alloc(host, 20);
  const Trace trace = builder_.finalize();
  // Each pool is time-sorted by the builder, same-time events in the order they were added.
  EXPECT_EQ(steps_of(MemoryOrder(trace)), (std::vector<Step>{{5, device, 0},
                                                             {10, host, 0},
                                                             {10, device, 1},
                                                             {20, host, 1},
                                                             {20, host, 2},
                                                             {20, device, 2}}));
}

TEST_F(MemoryOrderTest, OnePoolIsItsOwnOrder) {
  add_pool("host memory");
  const std::uint32_t device = add_pool("GPU 0 memory");
  for (const TimeNs time : {30, 10, 20})
    alloc(device, time);
  const Trace trace = builder_.finalize();
  EXPECT_EQ(steps_of(MemoryOrder(trace)),
            (std::vector<Step>{{10, device, 0}, {20, device, 1}, {30, device, 2}}));
}

TEST_F(MemoryOrderTest, ATraceWithoutMemoryEventsHasAnEmptyOrder) {
  add_pool("host memory");
  const Trace trace = builder_.finalize();
  EXPECT_TRUE(MemoryOrder(trace).empty());
}

}  // namespace
}  // namespace tscope::trace
