// The narrow storage of a finished trace: values held in a narrow type until one needs more, times
// as 32-bit offsets while they lie within 4.29 s of the first, and flows as columns read back as
// Flow values.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tscope/trace/event_details.h"
#include "tscope/trace/flow_table.h"
#include "tscope/trace/time_column.h"
#include "tscope/trace/widening_column.h"

namespace tscope::trace {
namespace {

TEST(WideningColumn, KeepsValuesThatFitIn32BitsNarrow) {
  WideningColumn column;
  column.push_back(7);
  column.push_back(0xffffffffu);
  EXPECT_FALSE(column.wide());
  EXPECT_EQ(column.size(), 2u);
  EXPECT_EQ(column[1], 0xffffffffu);
  EXPECT_EQ(column.capacity_bytes(), 2 * sizeof(std::uint32_t));
}

// In an index column the narrow type's largest value stands for the wide type's largest, so
// "none" stays narrow and the value that would collide with it is held wide.
TEST(WideningColumn, IndexColumnHoldsNoIndexNarrowAndTheNarrowMaximumWide) {
  IndexColumn details;
  details.push_back(3);
  details.push_back(kNoIndex);
  details.push_back(0xfffe);
  details.shrink_to_fit();
  EXPECT_FALSE(details.wide());
  EXPECT_EQ(details.capacity_bytes(), 3 * sizeof(std::uint16_t));
  EXPECT_EQ(details[1], kNoIndex);
  EXPECT_EQ(details[2], 0xfffeu);
  details.push_back(0xffff);
  EXPECT_TRUE(details.wide());
  EXPECT_EQ(details[0], 3u);
  EXPECT_EQ(details[1], kNoIndex);
  EXPECT_EQ(details[3], 0xffffu);
}

TEST(WideningColumn, DepthsWidenPast255Levels) {
  DepthColumn depths;
  depths.push_back(255);
  EXPECT_FALSE(depths.wide());
  depths.push_back(256);
  EXPECT_TRUE(depths.wide());
  EXPECT_EQ(depths[0], 255u);
  EXPECT_EQ(depths[1], 256u);
}

TEST(WideningColumn, IteratesAndComparesByValue) {
  IndexColumn narrow;
  IndexColumn wide;
  for (const std::uint32_t value : {5u, 1u, 9u}) {
    narrow.push_back(value);
    wide.push_back(value);
  }
  wide.push_back(1u << 20);
  wide.resize(3);
  EXPECT_TRUE(wide.wide());
  EXPECT_EQ(narrow, wide);
  EXPECT_EQ(std::vector<std::uint32_t>(narrow.begin(), narrow.end()),
            (std::vector<std::uint32_t>{5, 1, 9}));
  EXPECT_EQ(*std::max_element(narrow.begin(), narrow.end()), 9u);
  EXPECT_THROW((void)narrow.at(3), std::out_of_range);
}

TEST(WideningColumn, WidensEveryValueWhenOneNeeds64Bits) {
  WideningColumn column;
  column.push_back(7);
  column.push_back(std::uint64_t{1} << 33);
  column.push_back(9);
  EXPECT_TRUE(column.wide());
  EXPECT_EQ(column[0], 7u);
  EXPECT_EQ(column[1], std::uint64_t{1} << 33);
  EXPECT_EQ(column[2], 9u);
}

TEST(WideningColumn, ResizeFillsWithZeros) {
  WideningColumn column;
  column.resize(3);
  column.push_back(5);
  EXPECT_EQ(column.size(), 4u);
  EXPECT_EQ(column[2], 0u);
  EXPECT_EQ(column[3], 5u);
}

constexpr TimeNs kOffsetLimit = TimeNs{0xffffffff};  // the last offset a narrow column holds

TEST(TimeColumn, KeepsTimesWithin4SecondsOfTheFirstAsOffsets) {
  TimeColumn column;
  column.push_back(-1'000);
  column.push_back(5);
  column.push_back(-1'000 + kOffsetLimit);
  EXPECT_FALSE(column.wide());
  ASSERT_EQ(column.size(), 3u);
  EXPECT_EQ(column[0], -1'000);
  EXPECT_EQ(column[1], 5);
  EXPECT_EQ(column.back(), -1'000 + kOffsetLimit);
  column.shrink_to_fit();
  EXPECT_EQ(column.capacity_bytes(), 3 * sizeof(std::uint32_t));
  EXPECT_EQ(column.at(1), 5);
  EXPECT_THROW(column.at(3), std::out_of_range);
}

// A time past the last offset, or before the first time, widens the column; every time reads
// back the same, and equality looks at the times, not at how they are held.
TEST(TimeColumn, WidensWhenATimeLiesPastTheOffsetsOrBeforeTheFirst) {
  for (const TimeNs outside : {kOffsetLimit + 1, TimeNs{-1}}) {
    TimeColumn column;
    column.push_back(0);
    column.push_back(7);
    column.push_back(outside);
    column.push_back(9);
    EXPECT_TRUE(column.wide()) << outside;
    EXPECT_EQ(column[1], 7);
    EXPECT_EQ(column[2], outside);
    EXPECT_EQ(column[3], 9);
    TimeColumn narrow;
    for (const TimeNs time : {TimeNs{0}, TimeNs{7}})
      narrow.push_back(time);
    TimeColumn widened;
    widened.push_back(0);
    widened.push_back(7);
    EXPECT_EQ(narrow, widened);
    widened.push_back(outside);
    EXPECT_NE(narrow, widened);
  }
}

TEST(TimeColumn, HoldsTimesAtBothEndsOfTheRange) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  TimeColumn top;
  top.push_back(kMax - kOffsetLimit);
  top.push_back(kMax);
  EXPECT_FALSE(top.wide());
  EXPECT_EQ(top[1], kMax);
  TimeColumn bottom;
  bottom.push_back(kMin);
  bottom.push_back(kMin + 1);
  bottom.push_back(kMax);
  EXPECT_TRUE(bottom.wide());
  EXPECT_EQ(bottom[0], kMin);
  EXPECT_EQ(bottom[2], kMax);
}

TEST(TimeColumn, IteratesForBinarySearches) {
  TimeColumn column;
  for (const TimeNs time : {10, 20, 20, 30})
    column.push_back(time);
  const auto found = std::lower_bound(column.begin(), column.end(), 20);
  EXPECT_EQ(found - column.begin(), 1);
  EXPECT_EQ(*found, 20);
  EXPECT_EQ(std::upper_bound(column.begin(), column.end(), 20) - column.begin(), 3);
  EXPECT_EQ(std::lower_bound(column.begin(), column.end(), 31), column.end());
}

TEST(FlowTable, ReadsBackTheFlowsItWasGiven) {
  const Flow launch{
      FlowKind::kLaunchToKernel, 77, {EventKind::kSpan, 0, 1}, {EventKind::kSpan, 1, 0}};
  const Flow wide{FlowKind::kOther,
                  std::uint64_t{1} << 40,
                  {EventKind::kInstant, 2, 3},
                  {EventKind::kSpan, 1, 4}};
  FlowTable flows;
  flows.push_back(launch);
  flows.push_back(wide);
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0], launch);
  EXPECT_EQ(flows.at(1), wide);
  EXPECT_EQ(flows.front(), launch);
  EXPECT_THROW(flows.at(2), std::out_of_range);
  EXPECT_EQ(flows.begin()->id, 77u);
  EXPECT_EQ(std::count_if(flows.begin(), flows.end(),
                          [](const Flow& flow) { return flow.kind == FlowKind::kOther; }),
            1);
  const auto found =
      std::lower_bound(flows.begin(), flows.end(), wide.from,
                       [](const Flow& flow, const EventRef& ref) { return flow.from < ref; });
  EXPECT_EQ(found - flows.begin(), 1);
}

}  // namespace
}  // namespace tscope::trace
