// `tscope view --screenshot` on real Kineto traces (and a trace the engine's allocator records)
// under a private Xvfb: the pixels are checked at places computed by the same layout and frame code
// the viewer draws with.

#include "screenshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <set>

#include "allocator_trace.h"
#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/gui/colors.h"
#include "tscope/gui/segment_timeline.h"
#include "tscope/gui/selection.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/gui/window_layout.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::gui {
namespace {

using tscope::testing::quoted;
using tscope::testing::run_tscope;

const std::filesystem::path kResnet = tscope::testing::shared_data_path(
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");

const trace::Trace& resnet() {
  static const trace::Trace loaded = trace::load_trace(kResnet);
  return loaded;
}

class ScreenshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = tscope::testing::scratch_path(
        std::string("tscope_view_") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".png");
  }
  void TearDown() override { std::filesystem::remove(out_); }

  testing::Screenshot take(const std::string& arguments) {
    const auto result = run_tscope("view " + arguments + " --screenshot " + quoted(out_));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    testing::Screenshot image = testing::read_png(out_);
    EXPECT_EQ(image.width, kScreenshotWidth);
    EXPECT_EQ(image.height, kScreenshotHeight);
    return image;
  }

  // The session the viewer builds for the same arguments, laid out for the screenshot's size.
  static std::unique_ptr<TimelineSession> session_like_viewer() {
    auto session = std::make_unique<TimelineSession>(resnet(), kResnet.string());
    session->set_screen_rect(timeline_rect());
    return session;
  }
  static ScreenRect timeline_rect() {
    return layout_window(kScreenshotWidth, kScreenshotHeight).timeline;
  }

  std::filesystem::path out_;
};

// A pixel safely inside a box: one in from its top-left corner, before any label starts.
std::pair<int, int> inside_corner(const HitBox& box) {
  return {static_cast<int>(std::ceil(box.x0)) + 1, static_cast<int>(std::ceil(box.y0)) + 1};
}

bool visible_in_timeline(const HitBox& box, float lanes_top) {
  const ScreenRect rect = layout_window(kScreenshotWidth, kScreenshotHeight).timeline;
  return box.x0 >= rect.x + 4 && box.x1 <= rect.right() - 4 && box.y0 >= lanes_top &&
         box.y1 <= rect.bottom() - 4;
}

TEST_F(ScreenshotTest, TheTimelineIsNotBlank) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  const testing::Screenshot image = take(quoted(kResnet));
  ASSERT_NE(image.pixels, nullptr);
  const ScreenRect rect = timeline_rect();
  std::set<std::uint32_t> colours;
  for (int y = static_cast<int>(rect.y); y < static_cast<int>(rect.bottom()); y += 3) {
    for (int x = static_cast<int>(rect.x); x < static_cast<int>(rect.right()); x += 3) {
      colours.insert(image.pixel(x, y));
    }
  }
  EXPECT_GT(colours.size(), 10u);
}

TEST_F(ScreenshotTest, LaneHeadersSitWhereTheLayoutPutsThem) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  const testing::Screenshot image = take(quoted(kResnet));
  ASSERT_NE(image.pixels, nullptr);
  const auto viewer_session = session_like_viewer();
  TimelineSession& session = *viewer_session;
  const ScreenRect rect = timeline_rect();
  // Right of the label, left of where instant markers could be: the middle of the timeline.
  const int x = static_cast<int>(rect.x + rect.width / 2);
  int checked = 0;
  for (const Lane& lane : session.layout().lanes()) {
    if (session.trace().track(lane.track).instants().size() != 0) continue;
    const float header = session.area().screen_y(lane.top);
    if (header < session.area().lanes_top() || header + kLaneHeaderHeight > rect.bottom()) continue;
    const int y = static_cast<int>(header + kLaneHeaderHeight / 2);
    EXPECT_EQ(image.pixel(x, y), kLaneHeaderColor) << lane.label << " at y " << y;
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

TEST_F(ScreenshotTest, AWideSpanShowsItsCategoryColour) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  const auto viewer_session = session_like_viewer();
  TimelineSession& session = *viewer_session;
  const TimelineFrame& frame = session.build_frame();
  const HitBox* widest = nullptr;
  for (const HitBox& box : frame.boxes) {
    if (box.count != 1 || box.first.kind != trace::EventKind::kSpan ||
        !visible_in_timeline(box, session.area().lanes_top())) {
      continue;
    }
    if (widest == nullptr || box.x1 - box.x0 > widest->x1 - widest->x0) widest = &box;
  }
  ASSERT_NE(widest, nullptr);
  ASSERT_GE(widest->x1 - widest->x0, 4.0f);
  const testing::Screenshot image = take(quoted(kResnet));
  ASSERT_NE(image.pixels, nullptr);
  const auto [x, y] = inside_corner(*widest);
  const trace::Category category =
      session.trace().track(widest->first.track).spans().category[widest->first.index];
  EXPECT_EQ(image.pixel(x, y), category_color(category)) << "at " << x << ", " << y;
}

TEST_F(ScreenshotTest, TheDenseTraceAtFullZoomShowsFoldedBlocks) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  const auto viewer_session = session_like_viewer();
  TimelineSession& session = *viewer_session;
  const TimelineFrame& frame = session.build_frame();
  std::vector<HitBox> folded;
  for (const HitBox& box : frame.boxes) {
    if (box.count > 1 && box.first.kind == trace::EventKind::kSpan && box.x1 - box.x0 >= 4 &&
        visible_in_timeline(box, session.area().lanes_top())) {
      folded.push_back(box);
    }
  }
  ASSERT_FALSE(folded.empty());
  const testing::Screenshot image = take(quoted(kResnet));
  ASSERT_NE(image.pixels, nullptr);
  for (const HitBox& box : folded) {
    const auto [x, y] = inside_corner(box);
    EXPECT_EQ(image.pixel(x, y), kFoldedColor)
        << box.count << " spans folded at " << x << ", " << y;
  }
}

TEST_F(ScreenshotTest, ASelectedKernelShowsItsFlowFromItsLaunch) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  const std::string kernel_name = "volta_sgemm_64x64_nn";
  const auto viewer_session = session_like_viewer();
  TimelineSession& session = *viewer_session;
  const auto kernel = find_span_named(session.trace(), kernel_name);
  ASSERT_TRUE(kernel.has_value());
  session.select(kernel);
  ASSERT_FALSE(session.selection_flows().empty());
  const trace::Flow flow = session.selection_flows().front();
  const auto& launch_spans = session.trace().track(flow.from.track).spans();
  const auto& kernel_spans = session.trace().track(flow.to.track).spans();
  const TimeNs begin = launch_spans.start[flow.from.index] - 50'000 - session.origin();
  const TimeNs end = kernel_spans.end(flow.to.index) + 50'000 - session.origin();
  const std::string range = std::to_string(begin) + ":" + std::to_string(end);
  session.set_range(parse_time_range(range, session.origin()));
  session.build_frame();

  FrameRequest request;
  request.trace = &session.trace();
  request.layout = &session.layout();
  request.view = session.view();
  request.area = session.area();
  const auto from = span_place(request, flow.from);
  const auto to = span_place(request, flow.to);
  ASSERT_TRUE(from && to);
  const float leg_top = std::max(std::min((from->y0 + from->y1) / 2, (to->y0 + to->y1) / 2),
                                 session.area().lanes_top());
  const float leg_bottom = std::max((from->y0 + from->y1) / 2, (to->y0 + to->y1) / 2);
  ASSERT_LT(leg_bottom, timeline_rect().bottom()) << "the kernel's lane is off screen";
  const int x = static_cast<int>(std::floor(from->x0 + 0.5));
  const int y = static_cast<int>((leg_top + leg_bottom) / 2);

  const testing::Screenshot image =
      take(quoted(kResnet) + " --view " + range + " --select " + kernel_name);
  ASSERT_NE(image.pixels, nullptr);
  EXPECT_EQ(image.pixel(x, y), kFlowColor) << "flow leg at " << x << ", " << y;
}

TEST_F(ScreenshotTest, TheMemoryPanelDrawsItsStackInTheSidePanelWhenOpened) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TSCOPE_REQUIRE_DISPLAY();
  // The first group's colour (the panel's palette starts with the plot blue) in the side panel:
  // the stacked plot when the panel is open, nothing of it when it is closed.
  const ScreenRect side = layout_window(kScreenshotWidth, kScreenshotHeight).side_panel;
  const auto first_group_pixels = [&](const testing::Screenshot& image) {
    int count = 0;
    for (int y = static_cast<int>(side.y); y < static_cast<int>(side.bottom()); ++y) {
      for (int x = static_cast<int>(side.x); x < static_cast<int>(side.right()); ++x) {
        count += image.pixel(x, y) == kPlotColor ? 1 : 0;
      }
    }
    return count;
  };
  EXPECT_GT(first_group_pixels(take(quoted(kResnet) + " --memory-panel")), 1000);
  EXPECT_EQ(first_group_pixels(take(quoted(kResnet))), 0);
}

TEST_F(ScreenshotTest, TheMemoryPanelDrawsTheAllocatorsSegmentsWhenTheTraceHasThem) {
  TSCOPE_REQUIRE_DISPLAY();
  const std::filesystem::path recorded = tscope::testing::scratch_path("tscope_view_segments.tsc");
  tscope::testing::record_allocator_segments(recorded);
  const ScreenRect side = layout_window(kScreenshotWidth, kScreenshotHeight).side_panel;
  const auto count_in_side_panel = [&](const testing::Screenshot& image, Color color) {
    int count = 0;
    for (int y = static_cast<int>(side.y); y < static_cast<int>(side.bottom()); ++y) {
      for (int x = static_cast<int>(side.x); x < static_cast<int>(side.right()); ++x)
        count += image.pixel(x, y) == color ? 1 : 0;
    }
    return count;
  };
  // The view from the 12 MiB segment's taking to its giving back: its block fills its band until
  // freed, then the segment stays cached, reserved but unallocated, as does most of the small
  // segment below it.
  const trace::Trace loaded = trace::load_trace(recorded);
  const SegmentTimeline segments(loaded);
  ASSERT_EQ(segments.segments().size(), 2u);
  const AllocatorSegment& large = segments.segments()[1];
  const std::string view = std::to_string(large.taken - loaded.begin_time()) + ":" +
                           std::to_string(large.given_back - loaded.begin_time());
  const testing::Screenshot image = take(quoted(recorded) + " --memory-panel --view " + view);
  std::filesystem::remove(recorded);
  EXPECT_GT(count_in_side_panel(image, kSegmentAllocatedColor), 50);
  // The two bands in their alternating shades: the small segment's 2 MiB of the 14 MiB plot,
  // the large one's 12 MiB.
  EXPECT_GT(count_in_side_panel(image, kPlotReservedColor), 1000);
  EXPECT_GT(count_in_side_panel(image, kSegmentAlternateColor), 5000);
}

TEST_F(ScreenshotTest, ABadFileShowsItsErrorInTheWindowAndOnStderrAndExitsTwo) {
  TSCOPE_REQUIRE_DISPLAY();
  const std::filesystem::path bad = out_.string() + ".json";
  std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\", ";
  const auto result = run_tscope("view " + quoted(bad) + " --screenshot " + quoted(out_));
  std::filesystem::remove(bad);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(bad.string()), std::string::npos) << result.output;
  const testing::Screenshot image = testing::read_png(out_);
  ASSERT_NE(image.pixels, nullptr);
  const ScreenRect rect = timeline_rect();
  bool error_text = false;
  for (int y = static_cast<int>(rect.y); y < static_cast<int>(rect.y + 120) && !error_text; ++y) {
    for (int x = static_cast<int>(rect.x); x < static_cast<int>(rect.right()) && !error_text; ++x) {
      error_text = image.pixel(x, y) == kOomColor;
    }
  }
  EXPECT_TRUE(error_text);
}

TEST_F(ScreenshotTest, AnEmptyViewRangeIsBadInput) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const auto result =
      run_tscope("view " + quoted(kResnet) + " --view 5000:1000 --screenshot " + quoted(out_));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("5000:1000"), std::string::npos) << result.output;
}

TEST_F(ScreenshotTest, SelectingANameTheTraceLacksIsBadInput) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const auto result = run_tscope("view " + quoted(kResnet) +
                                 " --select no_such_kernel --screenshot " + quoted(out_));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("no_such_kernel"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace tscope::gui
