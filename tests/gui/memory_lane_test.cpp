// A memory pool whose events carry no allocator totals (Kineto's legacy schema): its lane plots
// the allocated bytes replayed from the allocations and frees, up from the lowest point.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tscope/gui/lane_layout.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::gui {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// One pool lane with an event of each (action, bytes), 10 ns apart.
trace::Trace pool_of(const std::vector<std::pair<trace::MemoryAction, std::uint64_t>>& events) {
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto pool = builder.add_track(
      {trace::TrackKind::kMemoryPool, builder.intern("pool"), process, -1, 0, -1, 0});
  trace::TimeNs time = 0;
  for (const auto& [action, bytes] : events) {
    trace::MemoryRecord record;
    record.time = time += 10;
    record.action = action;
    record.address = 4096;
    record.bytes = bytes;
    record.device = 0;
    builder.add_memory_event(pool, record);
  }
  return builder.finalize();
}

std::vector<std::uint64_t> replayed(const Lane& lane) {
  return {lane.replayed_allocated.begin(), lane.replayed_allocated.end()};
}

TEST(MemoryLane, ReplaysTheAllocationsUpFromTheLowestPoint) {
  using enum trace::MemoryAction;
  // A free of memory allocated before the trace began takes the running total below zero.
  const trace::Trace trace = pool_of({{kFree, 100}, {kAlloc, 300}, {kAlloc, 50}, {kFree, 300}});
  const LaneLayout layout(trace);
  ASSERT_EQ(layout.lanes().size(), 1u);
  const Lane& lane = layout.lanes()[0];
  EXPECT_EQ(lane.kind, LaneKind::kMemory);
  EXPECT_EQ(replayed(lane), (std::vector<std::uint64_t>{0, 300, 350, 50}));
  EXPECT_EQ(lane.plot_max, 350);
}

TEST(MemoryLane, TotalsBeyondFourGibibytesKeepTheirValues) {
  using enum trace::MemoryAction;
  const trace::Trace trace = pool_of({{kAlloc, 3 * kGiB}, {kAlloc, 2 * kGiB}, {kFree, 4 * kGiB}});
  const LaneLayout layout(trace);
  ASSERT_EQ(layout.lanes().size(), 1u);
  const Lane& lane = layout.lanes()[0];
  EXPECT_EQ(replayed(lane), (std::vector<std::uint64_t>{3 * kGiB, 5 * kGiB, kGiB}));
  EXPECT_EQ(lane.plot_max, static_cast<double>(5 * kGiB));
}

}  // namespace
}  // namespace tscope::gui
