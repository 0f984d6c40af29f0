#include "tscope/gui/time_view.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tscope::gui {
namespace {

TEST(TimeView, MapsTheRangeOntoTheWidth) {
  const TimeView view({1000, 2000}, 100, 500);
  EXPECT_DOUBLE_EQ(view.x_of(1000), 100);
  EXPECT_DOUBLE_EQ(view.x_of(2000), 600);
  EXPECT_EQ(view.time_at(350), 1500);
}

TEST(TimeView, ZoomKeepsTheTimeUnderTheCursor) {
  TimeView view({0, 1'000'000}, 0, 1000);
  const TimeNs before = view.time_at(250);
  view.zoom_around(250, 0.5);
  EXPECT_EQ(view.range().length(), 500'000);
  EXPECT_NEAR(static_cast<double>(view.time_at(250)), static_cast<double>(before), 1.0);
}

TEST(TimeView, DraggingRightShowsEarlierTime) {
  TimeView view({10'000, 20'000}, 0, 100);
  view.pan_pixels(10);
  EXPECT_EQ(view.range(), (TimeRange{9'000, 19'000}));
}

TEST(TimeView, ZoomStopsAtTheNarrowestWindow) {
  TimeView view({0, 100}, 0, 1000);
  for (int step = 0; step < 20; ++step)
    view.zoom_around(500, 0.5);
  EXPECT_EQ(view.range().length(), TimeView::kMinLength);
}

TEST(TimeRangeParsing, ReadsNanosecondsFromTheOrigin) {
  EXPECT_EQ(parse_time_range("100:250", 1'000), (TimeRange{1'100, 1'250}));
}

TEST(TimeRangeParsing, RejectsMalformedAndEmptyRanges) {
  EXPECT_THROW(parse_time_range("100", 0), std::invalid_argument);
  EXPECT_THROW(parse_time_range("a:5", 0), std::invalid_argument);
  EXPECT_THROW(parse_time_range("5:5", 0), std::invalid_argument);
}

}  // namespace
}  // namespace tscope::gui
