// The memory panel's model without a window: live bytes stacked by owner, scope or category,
// sampled per pixel column at the column's largest moment, the peak and the OOM marked, and a
// click on a band resolved to its live allocations and the op that made them.

#include "tscope/gui/memory_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "test_data.h"
#include "trace_records.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/trace_io.h"

namespace tscope::gui {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// A forward pass: parameters before it, then conv2d's unfolded input and a matmul output under
// "forward", the unfolded input freed, a loader batch, and an OOM at 100.
class TrainingMemory {
 public:
  TrainingMemory() {
    const auto process =
        builder_.add_process({1, builder_.intern("train"), trace::kEmptyString, -1, 0});
    thread_ = builder_.add_track(
        {trace::TrackKind::kHostThread, builder_.intern("main"), process, 1, -1, -1, 0});
    pool_ = builder_.add_track(
        {trace::TrackKind::kMemoryPool, builder_.intern("host memory"), process, -1, -1, -1, 1});
    span("forward", trace::Category::kUserAnnotation, 10, 90);
    conv_ = span("im2col", trace::Category::kCpuOp, 20, 30);
    memory(5, trace::MemoryAction::kAlloc, 0x10, 2 * kMiB, "empty", "");
    memory(25, trace::MemoryAction::kAlloc, 0x20, 40 * kMiB, "im2col", "forward");
    memory(40, trace::MemoryAction::kAlloc, 0x30, 10 * kMiB, "matmul", "forward");
    memory(50, trace::MemoryAction::kFree, 0x20, 40 * kMiB, "relu", "forward");
    memory(60, trace::MemoryAction::kAlloc, 0x40, 6 * kMiB, "empty", "load batch");
    trace::InstantRecord oom;
    oom.time = 100;
    oom.name = builder_.intern("out of memory");
    builder_.add_instant(thread_, oom);
  }

  trace::Trace finish() { return builder_.finalize(); }
  trace::EventRef conv() const { return conv_; }

 private:
  trace::EventRef span(std::string_view name, trace::Category category, trace::TimeNs start,
                       trace::TimeNs end) {
    return builder_.add_span(thread_, testing::named_span(builder_, name, category, start, end));
  }
  void memory(trace::TimeNs time, trace::MemoryAction action, std::uint64_t address,
              std::uint64_t bytes, std::string_view owner, std::string_view scope) {
    builder_.add_memory_event(
        pool_, testing::memory_record(builder_, time, action, address, bytes, owner, scope));
  }

  trace::TraceBuilder builder_;
  std::uint32_t thread_ = 0;
  std::uint32_t pool_ = 0;
  trace::EventRef conv_;
};

std::size_t group_index(const MemoryTimeline& timeline, std::string_view name) {
  const auto& groups = timeline.groups();
  return static_cast<std::size_t>(std::find(groups.begin(), groups.end(), name) - groups.begin());
}

TEST(MemoryTimeline, StacksLiveBytesByOwnerOpAndMarksThePeakAndTheOom) {
  const trace::Trace trace = TrainingMemory().finish();
  const MemoryTimeline timeline(trace, MemoryGrouping::kOwnerOp);
  // At the peak (t = 40) the groups are its owners, largest first, then "other".
  EXPECT_EQ(timeline.groups(), (std::vector<std::string>{"im2col", "matmul", "empty", "other"}));
  EXPECT_EQ(timeline.peak_time(), 40);
  EXPECT_EQ(timeline.peak_bytes(), 52 * kMiB);
  ASSERT_TRUE(timeline.oom_time());
  EXPECT_EQ(*timeline.oom_time(), 100);
  EXPECT_EQ(timeline.total_at(45), 52 * kMiB);
  // The free at 50 counts against im2col, which allocated the block, not relu, which freed it.
  const std::vector<MemoryColumn> columns = timeline.sample({50, 70}, 2);
  EXPECT_EQ(columns[0].by_group[group_index(timeline, "im2col")], 0u);
  EXPECT_EQ(columns[1].by_group[group_index(timeline, "empty")], 8 * kMiB);
  EXPECT_EQ(columns[1].total, 18 * kMiB);
}

TEST(MemoryTimeline, GroupsByScopeOrCategoryWhenSwitched) {
  const trace::Trace trace = TrainingMemory().finish();
  const MemoryTimeline by_scope(trace, MemoryGrouping::kScope);
  EXPECT_EQ(by_scope.groups().front(), "forward");
  const MemoryTimeline by_category(trace, MemoryGrouping::kCategory);
  const MemoryColumn late = by_category.sample({60, 61}, 1).front();
  EXPECT_EQ(late.by_group[group_index(by_category, "activations")], 10 * kMiB);
  // The loader's batch came after the peak, so its category is not among the peak's: "other".
  ASSERT_EQ(group_index(by_category, "input_batches"), by_category.groups().size());
  EXPECT_EQ(late.by_group[group_index(by_category, "other")], 6 * kMiB);
}

TEST(MemoryTimeline, AColumnShowsItsLargestMomentNotItsLast) {
  const trace::Trace trace = TrainingMemory().finish();
  const MemoryTimeline timeline(trace, MemoryGrouping::kOwnerOp);
  // One column over everything: the 52 MiB peak, though only 18 MiB are alive at its end.
  const MemoryColumn whole = timeline.sample({0, 200}, 1).front();
  EXPECT_EQ(whole.total, 52 * kMiB);
  EXPECT_EQ(whole.by_group[group_index(timeline, "im2col")], 40 * kMiB);
  // A column with no event carries the state in from before it.
  EXPECT_EQ(timeline.sample({70, 80}, 1).front().total, 18 * kMiB);
}

TEST(MemoryTimeline, ClickingABandListsItsAllocationsAndFindsTheOpThatMadeThem) {
  TrainingMemory copy;
  const trace::Trace trace = copy.finish();
  const MemoryTimeline timeline(trace, MemoryGrouping::kOwnerOp);
  const std::vector<LiveBlock> blocks =
      timeline.blocks_at(trace, 45, group_index(timeline, "im2col"));
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].bytes, 40 * kMiB);
  const std::optional<trace::EventRef> op = MemoryTimeline::op_of(trace, blocks[0]);
  ASSERT_TRUE(op);
  EXPECT_EQ(op->index, copy.conv().index);
  EXPECT_EQ(op->track, copy.conv().track);
}

TEST(MemoryTimeline, AddresslessKinetoEventsStackTheirNetBytes) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::load_trace(path);
  const MemoryTimeline timeline(trace, MemoryGrouping::kOwnerOp);
  // The analyzer's memory_peak on this trace: net bytes of both pools in time order.
  EXPECT_EQ(timeline.peak_bytes(), 2'810'904'320u);
  EXPECT_EQ(timeline.sample({trace.begin_time(), trace.end_time() + 1}, 1).front().total,
            2'810'904'320u);
  EXPECT_FALSE(timeline.oom_time());
}

TEST(MemoryTimeline, EveryColumnOfADenseTraceMatchesABruteForceMaximum) {
  // 100k random allocations and frees: each column's sample is the largest total in it.
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto pool = builder.add_track(
      {trace::TrackKind::kMemoryPool, builder.intern("pool"), process, -1, -1, -1, 0});
  const trace::StringId names[] = {builder.intern("a"), builder.intern("b"), builder.intern("c")};
  std::mt19937 random(7);
  std::vector<std::uint64_t> live;
  std::vector<std::uint64_t> totals;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    trace::MemoryRecord record;
    record.time = static_cast<trace::TimeNs>(i * 10);
    if (!live.empty() && random() % 2 == 0) {
      const std::size_t pick = random() % live.size();
      record.action = trace::MemoryAction::kFree;
      record.address = live[pick];
      record.bytes = live[pick] % 1000;
      live[pick] = live.back();
      live.pop_back();
      total -= record.bytes;
    } else {
      record.action = trace::MemoryAction::kAlloc;
      record.address = (i + 1) * 1000 + random() % 1000;
      record.bytes = record.address % 1000;
      record.owner_op = names[i % 3];
      live.push_back(record.address);
      total += record.bytes;
    }
    builder.add_memory_event(pool, record);
    totals.push_back(total);
  }
  const trace::Trace trace = builder.finalize();
  const MemoryTimeline timeline(trace, MemoryGrouping::kOwnerOp);
  const std::vector<MemoryColumn> columns = timeline.sample({0, 1'000'000}, 997);
  for (std::size_t column = 0; column < columns.size(); ++column) {
    const auto begin = static_cast<trace::TimeNs>(1'000'000.0 / 997 * static_cast<double>(column));
    const auto end =
        static_cast<trace::TimeNs>(1'000'000.0 / 997 * static_cast<double>(column + 1));
    const auto first = static_cast<std::size_t>((begin + 9) / 10);
    const auto last = static_cast<std::size_t>((end + 9) / 10);
    const std::uint64_t expected = *std::max_element(totals.begin() + first, totals.begin() + last);
    ASSERT_EQ(columns[column].total, expected) << "column " << column;
    ASSERT_EQ(std::accumulate(columns[column].by_group.begin(), columns[column].by_group.end(),
                              std::uint64_t{0}),
              expected);
  }
}

}  // namespace
}  // namespace tscope::gui
