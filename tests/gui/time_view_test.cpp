#include "tscope/gui/time_view.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "tscope/trace/time_range.h"

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

// Zooming out and panning stop at the edges of the time range a trace holds, where an unbounded
// window's ends (and its distance to the trace's events) would overflow TimeNs.
TEST(TimeView, ZoomOutStopsAtTheWidestWindow) {
  TimeView view({0, 1'000'000}, 0, 1000);
  for (int step = 0; step < 200; ++step)
    view.zoom_around(0, 4.0);
  EXPECT_EQ(view.range(), (TimeRange{0, trace::kMaxAbsTimeNs}));
  for (int step = 0; step < 200; ++step)
    view.zoom_around(1000, 4.0);
  EXPECT_EQ(view.range(), (TimeRange{-trace::kMaxAbsTimeNs, trace::kMaxAbsTimeNs}));
  EXPECT_DOUBLE_EQ(view.x_of(trace::kMaxAbsTimeNs), 1000);
}

TEST(TimeView, PanningStopsAtTheEdgesAndKeepsTheLength) {
  TimeView view({0, 1'000}, 0, 100);
  view.pan_pixels(1e30);
  EXPECT_EQ(view.range(), (TimeRange{-trace::kMaxAbsTimeNs, -trace::kMaxAbsTimeNs + 1'000}));
  view.pan_pixels(-1e30);
  EXPECT_EQ(view.range(), (TimeRange{trace::kMaxAbsTimeNs - 1'000, trace::kMaxAbsTimeNs}));
}

TEST(TimeView, ShowCutsARangeToTheWidestWindow) {
  TimeView view({0, 1}, 0, 100);
  view.show({std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max()});
  EXPECT_EQ(view.range(), (TimeRange{-trace::kMaxAbsTimeNs, trace::kMaxAbsTimeNs}));
  view.show({std::numeric_limits<TimeNs>::max() - 1, std::numeric_limits<TimeNs>::max()});
  EXPECT_EQ(view.range(),
            (TimeRange{trace::kMaxAbsTimeNs - TimeView::kMinLength, trace::kMaxAbsTimeNs}));
}

TEST(TimeRangeParsing, ReadsNanosecondsFromTheOrigin) {
  EXPECT_EQ(parse_time_range("100:250", 1'000), (TimeRange{1'100, 1'250}));
}

TEST(TimeRangeParsing, RejectsMalformedAndEmptyRanges) {
  EXPECT_THROW(parse_time_range("100", 0), std::invalid_argument);
  EXPECT_THROW(parse_time_range("a:5", 0), std::invalid_argument);
  EXPECT_THROW(parse_time_range("5:5", 0), std::invalid_argument);
}

TEST(TimeRangeParsing, RejectsRangesBeyondTheTimesATraceHolds) {
  EXPECT_THROW(parse_time_range("0:9223372036854775807", 1'000), std::invalid_argument);
  EXPECT_THROW(parse_time_range("-9223372036854775808:0", -1'000), std::invalid_argument);
  EXPECT_EQ(parse_time_range("0:" + std::to_string(trace::kMaxAbsTimeNs), 0),
            (TimeRange{0, trace::kMaxAbsTimeNs}));
}

}  // namespace
}  // namespace tscope::gui
