#include "tscope/gui/ruler.h"

#include <gtest/gtest.h>

namespace tscope::gui {
namespace {

TEST(Ruler, MajorStepIsTheSmallestOneTwoFiveStepOfAHundredPixels) {
  // 1 ms over 1000 px: 100 px is 100 µs.
  EXPECT_EQ(major_tick_step(TimeView({0, 1'000'000}, 0, 1000)), 100'000);
  // 130 px worth would be 130 µs: the next 1-2-5 step is 200 µs.
  EXPECT_EQ(major_tick_step(TimeView({0, 1'300'000}, 0, 1000)), 200'000);
}

TEST(Ruler, TicksFallOnMultiplesOfTheMinorStepFromTheOrigin) {
  const TimeView view({1'050, 2'050}, 0, 1000);
  const auto ticks = ruler_ticks(view, 1'000);
  ASSERT_FALSE(ticks.empty());
  for (const RulerTick& tick : ticks) {
    EXPECT_EQ(tick.time % 20, 0) << tick.time;
    EXPECT_EQ(tick.major, tick.time % 100 == 0) << tick.time;
    EXPECT_GE(tick.x, 0);
    EXPECT_LT(tick.x, 1000);
  }
}

TEST(Ruler, LabelsUseTheLargestUnitReachedWithTheDecimalsTheStepNeeds) {
  EXPECT_EQ(format_time_label(0, 200'000), "0 µs");
  EXPECT_EQ(format_time_label(1'200'000, 200'000), "1.2 ms");
  EXPECT_EQ(format_time_label(250, 50), "250 ns");
  EXPECT_EQ(format_time_label(2'250'000'000, 250'000'000), "2.25 s");
}

}  // namespace
}  // namespace tscope::gui
