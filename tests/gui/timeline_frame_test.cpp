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

  const TimelineFrame& build(TimeRange range) {
    FrameRequest request;
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
  const TimeNs start = fixture.trace.begin_time() + 50'000 * 2'000;
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

}  // namespace
}  // namespace tscope::gui
