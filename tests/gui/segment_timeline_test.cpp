// The memory panel's segments view without a window: the caching allocator's segments over time,
// from a trace the engine's real allocator records (over host memory, as its own tests run it),
// each filled as far as its blocks are allocated; a click on a band resolved to its blocks; a
// column drawn in at most one run per pixel row; and a Kineto trace without reserved totals
// shows no segments.

#include "tscope/gui/segment_timeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "allocator_trace.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/allocator_segments.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/trace_io.h"

namespace tscope::gui {
namespace {

constexpr std::uint64_t kKiB = 1 << 10;
constexpr std::uint64_t kMiB = 1 << 20;

// The allocator's own recording (allocator_trace.h).
class RecordedSegments : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::filesystem::path output = tscope::testing::scratch_path("segment_timeline.tsc");
    testing::record_allocator_segments(output);
    trace_ = std::make_unique<trace::Trace>(trace::load_trace(output));
    std::filesystem::remove(output);
  }
  static void TearDownTestSuite() { trace_.reset(); }

  static std::unique_ptr<trace::Trace> trace_;
};

std::unique_ptr<trace::Trace> RecordedSegments::trace_;

TEST_F(RecordedSegments, EachSegmentIsABandFilledByTheBlocksAllocatedInsideIt) {
  const SegmentTimeline timeline(*trace_);
  ASSERT_TRUE(timeline.has_segments());
  ASSERT_EQ(timeline.segments().size(), 2u);
  const AllocatorSegment& small = timeline.segments()[0];
  const AllocatorSegment& large = timeline.segments()[1];
  EXPECT_EQ(small.bytes, 2 * kMiB);
  EXPECT_EQ(large.bytes, 12 * kMiB);
  EXPECT_EQ(small.given_back, AllocatorSegment::kNever);
  EXPECT_NE(large.given_back, AllocatorSegment::kNever);
  EXPECT_EQ(timeline.peak_reserved(), 14 * kMiB);
  // Right after the large block: everything allocated, both segments reserved.
  ASSERT_FALSE(large.change_times.empty());
  const std::vector<SegmentColumn> at_peak =
      timeline.sample({trace_->begin_time(), large.change_times.front() + 1}, 1);
  EXPECT_EQ(at_peak.front().reserved, 14 * kMiB);
  EXPECT_EQ(at_peak.front().allocated, 12 * kMiB + 12 * kKiB);
  ASSERT_EQ(at_peak.front().bands.size(), 2u);
  EXPECT_EQ(at_peak.front().bands[0].allocated, 12 * kKiB);
  EXPECT_EQ(at_peak.front().bands[1].allocated, 12 * kMiB);
  // At the end: the small segment alone, two of its blocks still allocated; the rest of it is
  // reserved but unallocated.
  const std::vector<SegmentColumn> at_end =
      timeline.sample({trace_->begin_time(), trace_->end_time() + 1}, 1);
  EXPECT_EQ(at_end.front().reserved, 2 * kMiB);
  EXPECT_EQ(at_end.front().allocated, 8 * kKiB);
  ASSERT_EQ(at_end.front().bands.size(), 1u);
  EXPECT_EQ(at_end.front().bands[0].segment, 0u);
}

TEST_F(RecordedSegments, ClickingABandListsTheBlocksInsideItThen) {
  const SegmentTimeline timeline(*trace_);
  ASSERT_EQ(timeline.segments().size(), 2u);
  const std::vector<LiveBlock> blocks = timeline.blocks_at(*trace_, 0, trace_->end_time());
  ASSERT_EQ(blocks.size(), 2u);
  const AllocatorSegment& small = timeline.segments()[0];
  for (const LiveBlock& block : blocks) {
    EXPECT_EQ(block.bytes, 4 * kKiB);
    const trace::MemoryColumns& memory = trace_->track(block.event.track).memory();
    EXPECT_EQ(memory.action(block.event.index), trace::MemoryAction::kAlloc);
    EXPECT_GE(memory.address[block.event.index], small.address);
    EXPECT_LT(memory.address[block.event.index], small.address + small.bytes);
  }
  // The large segment, given back, holds nothing at the end.
  EXPECT_TRUE(timeline.blocks_at(*trace_, 1, trace_->end_time()).empty());
}

TEST(SegmentTimelineSweep, EveryColumnHoldsExactlyTheSegmentsAliveAtItsEnd) {
  // 300 segments taken and given back at random times, sampled at every zoom of a sweep over
  // the columns: each column's bands are the segments a brute-force check finds alive there.
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto thread = builder.add_track(
      {trace::TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
  const auto instant = [&](std::string_view name, trace::TimeNs time, std::uint64_t address) {
    trace::InstantRecord record;
    record.time = time;
    record.name = builder.intern(name);
    record.args = {{builder.intern("address"), static_cast<std::int64_t>(address)},
                   {builder.intern("bytes"), static_cast<std::int64_t>(kMiB)},
                   {builder.intern("device"), std::int64_t{0}}};
    builder.add_instant(thread, record);
  };
  std::mt19937 random(11);
  for (std::uint64_t segment = 0; segment < 300; ++segment) {
    const auto taken = static_cast<trace::TimeNs>(random() % 100'000);
    const auto given_back = taken + 1 + static_cast<trace::TimeNs>(random() % 20'000);
    instant(trace::kSegmentAllocInstant, taken, (segment + 1) * 2 * kMiB);
    if (segment % 7 != 0) instant(trace::kSegmentFreeInstant, given_back, (segment + 1) * 2 * kMiB);
  }
  const trace::Trace trace = builder.finalize();
  const SegmentTimeline timeline(trace);
  ASSERT_EQ(timeline.segments().size(), 300u);
  for (const TimeRange range : {TimeRange{0, 130'000}, TimeRange{40'000, 41'000}}) {
    for (const SegmentColumn& column : timeline.sample(range, 997)) {
      std::size_t alive = 0;
      for (const AllocatorSegment& segment : timeline.segments())
        alive += segment.alive_at(column.time) ? 1 : 0;
      ASSERT_EQ(column.bands.size(), alive) << "at " << column.time;
      for (const SegmentBand& band : column.bands)
        ASSERT_TRUE(timeline.segments()[band.segment].alive_at(column.time));
    }
  }
  std::size_t never_given_back = 0;
  for (const AllocatorSegment& segment : timeline.segments())
    never_given_back += segment.given_back == AllocatorSegment::kNever ? 1 : 0;
  EXPECT_EQ(never_given_back, 43u);
}

TEST(SegmentColumnRuns, AColumnDrawsAtMostOneRunPerPixelRowHoweverManySegments) {
  // 100,000 segments of 1 MiB, each a quarter allocated, in a 100-pixel plot: the bands, far
  // thinner than a pixel, merge.
  SegmentColumn column;
  for (std::uint32_t segment = 0; segment < 100'000; ++segment) {
    column.bands.push_back({segment, kMiB, kMiB / 4});
    column.reserved += kMiB;
    column.allocated += kMiB / 4;
  }
  const double scale = 100.0 / static_cast<double>(column.reserved);
  const ColumnRuns runs = column_runs(column, scale);
  EXPECT_EQ(runs.reserved.size(), 1u);
  EXPECT_LE(runs.allocated.size(), 101u);
  EXPECT_NEAR(runs.reserved.front().top, 100.0f, 0.01f);
}

TEST(SegmentColumnRuns, BandsTallerThanAPixelKeepTheirBandsAndFreePartsApart) {
  SegmentColumn column;
  column.bands = {{0, 20 * kMiB, 5 * kMiB}, {1, 20 * kMiB, 10 * kMiB}};
  const ColumnRuns runs = column_runs(column, 100.0 / static_cast<double>(40 * kMiB));
  ASSERT_EQ(runs.reserved.size(), 2u);
  EXPECT_FLOAT_EQ(runs.reserved[0].top, 50.0f);
  EXPECT_FLOAT_EQ(runs.reserved[1].bottom, 50.0f);
  ASSERT_EQ(runs.allocated.size(), 2u);
  EXPECT_FLOAT_EQ(runs.allocated[0].top, 12.5f);
  EXPECT_FLOAT_EQ(runs.allocated[1].bottom, 50.0f);
  EXPECT_FLOAT_EQ(runs.allocated[1].top, 75.0f);
}

TEST(SegmentTimelineTotals, WithoutSegmentEventsTheAllocatorsTotalsGiveReservedAndAllocated) {
  // Kineto's current [memory] events: each with the allocator's Total Allocated and Total
  // Reserved after it, on two devices.
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto pool = builder.add_track(
      {trace::TrackKind::kMemoryPool, builder.intern("GPU memory"), process, -1, 0, -1, 0});
  const auto add = [&](trace::TimeNs time, std::int32_t device, std::uint64_t allocated,
                       std::uint64_t reserved) {
    trace::MemoryRecord record;
    record.time = time;
    record.address = 0x1000 + static_cast<std::uint64_t>(time);
    record.bytes = kMiB;
    record.device = device;
    record.total_allocated = allocated;
    record.total_reserved = reserved;
    builder.add_memory_event(pool, record);
  };
  add(10, 0, 1 * kMiB, 20 * kMiB);
  add(20, 1, 2 * kMiB, 20 * kMiB);
  add(30, 0, 3 * kMiB, 40 * kMiB);
  const trace::Trace trace = builder.finalize();
  const SegmentTimeline timeline(trace);
  EXPECT_FALSE(timeline.empty());
  EXPECT_FALSE(timeline.has_segments());
  EXPECT_EQ(timeline.peak_reserved(), 60 * kMiB);
  const std::vector<SegmentColumn> columns = timeline.sample({0, 40}, 4);
  EXPECT_EQ(columns[0].reserved, 0u);
  EXPECT_EQ(columns[1].reserved, 20 * kMiB);
  EXPECT_EQ(columns[2].reserved, 40 * kMiB);
  EXPECT_EQ(columns[2].allocated, 3 * kMiB);
  EXPECT_EQ(columns[3].reserved, 60 * kMiB);
  EXPECT_EQ(columns[3].allocated, 5 * kMiB);
}

TEST(SegmentTimelineOnKineto, MemoryEventsWithoutReservedTotalsGiveNoSegmentsView) {
  // PyTorch 1.8's [memory] events: bytes only, no addresses, no Total Reserved.
  const std::filesystem::path path = testing::shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::load_trace(path);
  ASSERT_GT(trace.counts().memory_events, 0u);
  EXPECT_TRUE(SegmentTimeline(trace).empty());
}

}  // namespace
}  // namespace tscope::gui
