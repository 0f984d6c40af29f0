#include "tscope/gui/timeline_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "dense_trace.h"
#include "tscope/gui/colors.h"
#include "tscope/gui/lane_layout.h"

namespace tscope::gui {
namespace {

constexpr float kWidth = 1000;

struct FrameFixture {
  trace::Trace trace;
  LaneLayout layout;
  TimelineFrame frame;

  explicit FrameFixture(trace::Trace built) : trace(std::move(built)), layout(trace) {}

  const TimelineFrame& build(TimeRange range,
                             const std::vector<analyzer::PathSegment>* path = nullptr) {
    FrameRequest request;
    request.critical_path = path;
    request.trace = &trace;
    request.layout = &layout;
    request.view = TimeView(range, 0, kWidth);
    request.area = {0, 2000, 0};
    request.origin = trace.begin_time();
    build_timeline_frame(request, frame);
    return frame;
  }

  std::uint64_t spans_covered(std::size_t depth) const {
    std::uint64_t total = 0;
    const float row_y = frame_area().screen_y(layout.lanes()[0].row_top(depth));
    for (const HitBox& box : frame.boxes) {
      if (box.y0 == row_y) total += box.count;
    }
    return total;
  }

  static TimelineArea frame_area() { return {0, 2000, 0}; }
};

TEST(TimelineFrame, FullViewOfDenseSpansFoldsThemIntoCountedBlocks) {
  // 100,000 spans of 1 µs over 0.2 s: at 1000 px a pixel is 200 µs, every span far under 3 px.
  FrameFixture fixture(testing::back_to_back_spans(100'000, 1'000, 1'000));
  const TimelineFrame& frame =
      fixture.build({fixture.trace.begin_time(), fixture.trace.end_time()});
  const auto folded = std::count_if(frame.boxes.begin(), frame.boxes.end(),
                                    [](const HitBox& box) { return box.count > 1; });
  EXPECT_GT(folded, 0);
  EXPECT_EQ(fixture.spans_covered(0), 100'000u);
  EXPECT_EQ(fixture.spans_covered(1), 10'000u);
}

TEST(TimelineFrame, WorkFollowsTheScreenWidthNotTheSpanCount) {
  FrameFixture fixture(testing::back_to_back_spans(200'000, 1'000, 1'000));
  const TimelineFrame& frame =
      fixture.build({fixture.trace.begin_time(), fixture.trace.end_time()});
  // Each folded block covers at least kMinSpanPixels, per row.
  EXPECT_LE(frame.boxes.size(), 2 * static_cast<std::size_t>(kWidth / kMinSpanPixels + 2));
}

TEST(TimelineFrame, FoldedBlocksAreDrawnInTheFoldedColourWithTheirCount) {
  FrameFixture fixture(testing::back_to_back_spans(100'000, 1'000, 1'000));
  const TimelineFrame& frame =
      fixture.build({fixture.trace.begin_time(), fixture.trace.end_time()});
  const auto widest =
      std::max_element(frame.boxes.begin(), frame.boxes.end(),
                       [](const HitBox& a, const HitBox& b) { return a.x1 - a.x0 < b.x1 - b.x0; });
  ASSERT_NE(widest, frame.boxes.end());
  ASSERT_GT(widest->count, 1u);
  const bool drawn_grey =
      std::any_of(frame.rects.begin(), frame.rects.end(), [&](const DrawRect& r) {
        return r.x0 == widest->x0 && r.y0 == widest->y0 && r.color == kFoldedColor;
      });
  EXPECT_TRUE(drawn_grey);
  const bool labelled = std::any_of(frame.texts.begin(), frame.texts.end(), [&](const DrawText& t) {
    return frame.text(t) == std::to_string(widest->count);
  });
  EXPECT_TRUE(labelled);
}

TEST(TimelineFrame, DeepZoomDrawsEachVisibleSpanWithItsName) {
  FrameFixture fixture(testing::back_to_back_spans(100'000, 1'000, 1'000));
  const TimeNs start = fixture.trace.begin_time() + TimeNs{50'000} * 2'000;
  // 10 µs: spans of 1 µs are 100 px wide.
  const TimelineFrame& frame = fixture.build({start, start + 10'000});
  ASSERT_FALSE(frame.boxes.empty());
  for (const HitBox& box : frame.boxes)
    EXPECT_EQ(box.count, 1u);
  EXPECT_EQ(fixture.spans_covered(0), 5u);
  const auto named = std::count_if(frame.texts.begin(), frame.texts.end(),
                                   [&](const DrawText& t) { return frame.text(t) == "op"; });
  EXPECT_EQ(named, 5);
}

TEST(TimelineFrame, SpansOutsideTheViewAreNotDrawn) {
  FrameFixture fixture(testing::back_to_back_spans(1'000, 1'000, 1'000));
  const TimeNs after = fixture.trace.end_time() + 1'000'000;
  const TimelineFrame& frame = fixture.build({after, after + 10'000});
  EXPECT_TRUE(frame.boxes.empty());
}

TEST(TimelineFrame, SpansColouredByCategory) {
  FrameFixture fixture(testing::back_to_back_spans(10, 1'000, 1'000));
  const TimelineFrame& frame =
      fixture.build({fixture.trace.begin_time(), fixture.trace.end_time()});
  const auto has = [&](Color color) {
    return std::any_of(frame.rects.begin(), frame.rects.end(),
                       [&](const DrawRect& rect) { return rect.color == color; });
  };
  EXPECT_TRUE(has(category_color(trace::Category::kCpuOp)));
  EXPECT_TRUE(has(category_color(trace::Category::kKernel)));
}

std::vector<DrawRect> critical_path_bars(const TimelineFrame& frame) {
  std::vector<DrawRect> bars;
  std::copy_if(frame.rects.begin(), frame.rects.end(), std::back_inserter(bars),
               [](const DrawRect& rect) { return rect.color == kCriticalPathColor; });
  return bars;
}

TEST(TimelineFrame, CriticalPathIsOneBarUnderTheSpansItRunsThrough) {
  // Ten 1 µs ops 1 µs apart from 1 ms (spans 0, 2, 4, ... at depth 0; every tenth has a child).
  FrameFixture fixture(testing::back_to_back_spans(10, 1'000, 1'000));
  const trace::SpanColumns& spans = fixture.trace.track(0).spans();
  std::vector<analyzer::PathSegment> path;
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (spans.depth[i] != 0 || spans.start[i] < 1'004'000 || spans.start[i] >= 1'008'000) continue;
    path.push_back({spans.start[i],
                    spans.end(i),
                    analyzer::PathPart::kHostCompute,
                    true,
                    {trace::EventKind::kSpan, 0, i}});
  }
  ASSERT_EQ(path.size(), 2u);
  // The ops at 1.004 and 1.006 ms in a 1 µs-per-10 px view: two bars along the bottom of their row.
  const TimelineFrame& frame = fixture.build({1'000'000, 1'100'000}, &path);
  const std::vector<DrawRect> bars = critical_path_bars(frame);
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_FLOAT_EQ(bars[0].x0, 40);
  EXPECT_FLOAT_EQ(bars[0].x1, 50);
  EXPECT_FLOAT_EQ(bars[1].x0, 60);
  EXPECT_FLOAT_EQ(bars[1].y0, bars[0].y0);
  // Zoomed out so that they are within a pixel: one bar.
  EXPECT_EQ(critical_path_bars(fixture.build({0, 2'000'000}, &path)).size(), 1u);
  // No path requested, or the path out of view: no bar.
  EXPECT_TRUE(critical_path_bars(fixture.build({1'000'000, 1'100'000})).empty());
  EXPECT_TRUE(critical_path_bars(fixture.build({1'050'000, 1'100'000}, &path)).empty());
}

}  // namespace
}  // namespace tscope::gui
