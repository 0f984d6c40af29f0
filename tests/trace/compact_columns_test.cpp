// The narrow storage of a finished trace: 64-bit values held in 32 bits until one needs more, and
// flows as columns read back as Flow values.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "tscope/trace/flow_table.h"
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
