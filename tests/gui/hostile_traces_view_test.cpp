// Valid but hostile traces (tests/support/hostile_traces.h) through the viewer: the session a
// window drives (layout, frames, zoom and pan to the ends of the time range and beyond, clicks,
// search, statistics, findings, steps), the memory and segment panels' series, and `tscope view
// --screenshot`, which draws them with ImGui. Nothing may crash or overflow (the sanitizer build
// runs this too), and what is drawn must be finite, on screen and ordered.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "hostile_traces.h"
#include "scratch_folder.h"
#include "screenshot.h"
#include "tscope/gui/memory_timeline.h"
#include "tscope/gui/segment_timeline.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/gui/window_layout.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::gui {
namespace {

const ScreenRect kTimeline = layout_window(kScreenshotWidth, kScreenshotHeight).timeline;

bool has_non_number(std::string_view text) {
  for (const std::string_view word : {"nan", "inf", "-nan"}) {
    if (text.find(word) != std::string_view::npos) return true;
  }
  return false;
}

// Every shape finite and within the timeline's columns (a span past the edge is clamped a few
// pixels outside it), every box's time in order, no label reading nan or inf.
void expect_sane(const TimelineFrame& frame, const std::string& after) {
  const auto on_screen = [&](float x) {
    return std::isfinite(x) && x >= kTimeline.x - 8 && x <= kTimeline.right() + 8;
  };
  for (const DrawRect& rect : frame.rects) {
    EXPECT_TRUE(on_screen(rect.x0) && on_screen(rect.x1))
        << after << ": " << rect.x0 << ".." << rect.x1;
    EXPECT_TRUE(std::isfinite(rect.y0) && std::isfinite(rect.y1)) << after;
    EXPECT_LE(rect.x0, rect.x1) << after;
  }
  for (const DrawTriangle& triangle : frame.triangles) {
    EXPECT_TRUE(on_screen(triangle.x0) && on_screen(triangle.x1) && on_screen(triangle.x2))
        << after;
  }
  for (const DrawText& label : frame.texts) {
    EXPECT_TRUE(std::isfinite(label.x) && std::isfinite(label.y)) << after;
    EXPECT_FALSE(has_non_number(frame.text(label))) << after << ": " << frame.text(label);
  }
  for (const HitBox& box : frame.boxes) {
    EXPECT_TRUE(on_screen(box.x0) && on_screen(box.x1)) << after;
    EXPECT_LE(box.begin, box.end) << after;
    EXPECT_GE(box.count, 1u) << after;
  }
}

// What a user can do to the session, each followed by a frame: zoom into the middle down to the
// narrowest view, out far beyond the trace, pan by huge distances both ways, click across the
// timeline, search and step through matches, statistics of the view and of the selection, every
// finding and every step.
void drive_like_a_user(TimelineSession& session) {
  session.set_screen_rect(kTimeline);
  expect_sane(session.build_frame(), "fit all");
  const double middle = kTimeline.x + kTimeline.width / 2;
  for (int i = 0; i < 80; ++i)
    session.zoom_around(middle, 0.5);
  expect_sane(session.build_frame(), "zoomed in");
  EXPECT_GE(session.view().range().length(), TimeView::kMinLength);
  for (int i = 0; i < 200; ++i)
    session.zoom_around(kTimeline.x, 4.0);
  expect_sane(session.build_frame(), "zoomed out");
  EXPECT_GT(session.view().range().length(), 0);
  for (const double pixels : {1e12, -1e12, 1e30, -1e30}) {
    session.pan(pixels, 0);
    expect_sane(session.build_frame(), "panned by " + std::to_string(pixels));
    EXPECT_GT(session.view().range().length(), 0);
  }
  session.fit_all();
  expect_sane(session.build_frame(), "fit all again");
  for (float x = kTimeline.x; x < kTimeline.right(); x += kTimeline.width / 16) {
    for (float y = kTimeline.y; y < kTimeline.bottom(); y += kTimeline.height / 8) {
      session.click(x, y);
      expect_sane(session.build_frame(), "click");
    }
  }
  session.compute_statistics_for_view();
  for (const std::string query : {"gemm", "step", "e"}) {
    session.search(query);
    for (int i = 0; i < 3; ++i) {
      session.search_step(i != 1);
      expect_sane(session.build_frame(), "search " + query);
      session.compute_statistics_for_selection();
      session.zoom_to_selection();
      expect_sane(session.build_frame(), "zoom to selection");
    }
  }
  ASSERT_TRUE(session.statistics().has_value());
  for (const SpanStatistic& row : session.statistics()->rows) {
    EXPECT_GE(row.total, 0);
    EXPECT_GE(row.longest, 0);
    EXPECT_LE(row.longest, row.total);
  }
  session.wait_for_analysis();
  ASSERT_TRUE(session.report().has_value()) << session.report_error();
  for (std::size_t i = 0; i < session.report()->findings.size(); ++i) {
    session.show_finding(i);
    expect_sane(session.build_frame(), "finding " + std::to_string(i));
  }
  for (std::size_t i = 0; i < session.steps().steps.size(); ++i) {
    session.show_step(i);
    expect_sane(session.build_frame(), "step " + std::to_string(i));
  }
}

TEST(HostileTracesInTheViewer, KinetoJsonWithNegativeDurationsOverlapsAndDuplicateCorrelations) {
  TimelineSession session(
      tscope::testing::kineto_with_negative_durations_overlaps_and_duplicate_correlations(),
      "hostile.json");
  drive_like_a_user(session);
}

TEST(HostileTracesInTheViewer, TimestampsAndMemoryAtTheLimitsOfTheTimeRange) {
  TimelineSession session(tscope::testing::at_the_limits_of_the_time_range(), "limits");
  drive_like_a_user(session);
}

TEST(HostileTracesInTheViewer, OneSpanAcrossTheWholeTimeRange) {
  TimelineSession session(tscope::testing::one_span_across_the_time_range(), "whole range");
  drive_like_a_user(session);
}

TEST(HostileTracesInTheViewer, AMillionTracks) {
  TimelineSession session(tscope::testing::with_a_million_tracks(), "million tracks");
  drive_like_a_user(session);
}

// The memory panel's series over allocations of 2^63 and 2^64 - 1 bytes, a free never allocated
// and an address allocated twice, sampled over the whole time range: no overflow, no column above
// the peak and no group above its column.
TEST(HostileTracesInTheViewer, MemorySeriesAtTheLimits) {
  const trace::Trace trace = tscope::testing::at_the_limits_of_the_time_range();
  const TimeRange whole{trace.begin_time(), trace.end_time()};
  for (const MemoryGrouping grouping :
       {MemoryGrouping::kOwnerOp, MemoryGrouping::kScope, MemoryGrouping::kCategory}) {
    const MemoryTimeline memory(trace, grouping);
    ASSERT_FALSE(memory.empty());
    for (const MemoryColumn& column : memory.sample(whole, 1000)) {
      EXPECT_LE(column.total, memory.peak_bytes());
      for (const std::uint64_t bytes : column.by_group)
        EXPECT_LE(bytes, column.total);
    }
    for (std::size_t group = 0; group < memory.groups().size(); ++group)
      static_cast<void>(memory.blocks_at(trace, memory.peak_time(), group));
  }
  const SegmentTimeline segments(trace);
  for (const SegmentColumn& column : segments.sample(whole, 1000)) {
    EXPECT_LE(column.reserved, segments.peak_reserved());
    const ColumnRuns runs = column_runs(column, 100.0 / static_cast<double>(UINT64_MAX));
    for (const PixelRun& run : runs.reserved)
      EXPECT_TRUE(std::isfinite(run.bottom) && std::isfinite(run.top) && run.bottom <= run.top);
  }
}

// `tscope view --screenshot` on each small hostile trace, saved as .tsc, with the memory panel
// open: the ImGui panels draw them and the viewer exits 0.
TEST(HostileTracesInTheViewer, ScreenshotsOfEachTrace) {
  TSCOPE_REQUIRE_DISPLAY();
  const std::filesystem::path folder = tscope::testing::scratch_path("tscope_hostile_view");
  std::filesystem::create_directories(folder);
  const std::pair<const char*, trace::Trace> traces[] = {
      {"kineto",
       tscope::testing::kineto_with_negative_durations_overlaps_and_duplicate_correlations()},
      {"limits", tscope::testing::at_the_limits_of_the_time_range()},
      {"whole-range", tscope::testing::one_span_across_the_time_range()},
  };
  for (const auto& [name, trace] : traces) {
    const std::filesystem::path file = folder / (std::string(name) + ".tsc");
    const std::filesystem::path png = folder / (std::string(name) + ".png");
    trace::save_trace(trace, file);
    const auto result =
        tscope::testing::run_tscope("view " + tscope::testing::quoted(file) +
                                    " --memory-panel --screenshot " + tscope::testing::quoted(png));
    EXPECT_EQ(result.exit_code, 0) << name << ":\n" << result.output;
    const testing::Screenshot image = testing::read_png(png);
    EXPECT_EQ(image.width, kScreenshotWidth) << name;
    EXPECT_EQ(image.height, kScreenshotHeight) << name;
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tscope::gui
