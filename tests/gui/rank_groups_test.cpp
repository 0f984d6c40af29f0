// The ranks of one run in one timeline: a header row per rank that folds its lanes.

#include <gtest/gtest.h>

#include <string>

#include "tscope/gui/lane_layout.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::gui {
namespace {

// Two ranks, as a merged `tscope view` of two traces numbers them: each a process with a host
// thread and a GPU stream, one span on each.
trace::Trace two_ranks() {
  trace::TraceBuilder builder;
  const trace::StringId name = builder.intern("all_reduce");
  for (std::int32_t rank = 0; rank < 2; ++rank) {
    const auto process =
        builder.add_process({(rank + 1) * 1000, builder.intern("rank " + std::to_string(rank)),
                             trace::kEmptyString, rank, rank * 100});
    const auto thread = builder.add_track(
        {trace::TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
    const auto stream = builder.add_track(
        {trace::TrackKind::kGpuStream, builder.intern("stream 7"), process, -1, 0, 7, 0});
    for (const auto track : {thread, stream}) {
      trace::SpanRecord span;
      span.start = 1'000 + rank * 500;
      span.end = span.start + 1'000;
      span.name = name;
      span.category = trace::Category::kCommunication;
      builder.add_span(track, span);
    }
  }
  return builder.finalize();
}

TEST(RankGroups, OneHeaderPerRankAboveItsLanes) {
  const trace::Trace trace = two_ranks();
  const LaneLayout layout(trace);
  ASSERT_EQ(layout.groups().size(), 2u);
  for (std::size_t group = 0; group < 2; ++group) {
    const LaneGroup& found = layout.groups()[group];
    EXPECT_EQ(found.rank, static_cast<std::int32_t>(group));
    EXPECT_EQ(found.label, "rank " + std::to_string(group) + " (2 lanes)");
    ASSERT_EQ(found.lane_count, 2u);
    for (std::uint32_t lane = found.first_lane; lane < found.first_lane + 2; ++lane) {
      EXPECT_GT(layout.lanes()[lane].top, found.top);
      EXPECT_EQ(trace.processes()[trace.track(layout.lanes()[lane].track).info().process].rank,
                found.rank);
    }
  }
}

TEST(RankGroups, OneRankHasNoGroups) {
  trace::TraceBuilder builder;
  const auto process = builder.add_process({1, builder.intern("train"), trace::kEmptyString, 0, 0});
  const auto thread = builder.add_track(
      {trace::TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
  trace::SpanRecord span;
  span.start = 1;
  span.end = 2;
  builder.add_span(thread, span);
  const trace::Trace trace = builder.finalize();
  EXPECT_TRUE(LaneLayout(trace).groups().empty());
}

TEST(RankGroups, CollapsingARankHidesItsLanesAndMovesTheNextRankUp) {
  const trace::Trace trace = two_ranks();
  LaneLayout layout(trace);
  const float full_height = layout.content_height();
  const float second_top = layout.groups()[1].top;
  const std::uint32_t first_track = layout.lanes()[0].track;
  layout.set_collapsed(0, true);
  EXPECT_TRUE(layout.lanes()[0].hidden);
  EXPECT_TRUE(layout.lanes()[1].hidden);
  EXPECT_FALSE(layout.lanes()[2].hidden);
  EXPECT_EQ(layout.lane_of_track(first_track), nullptr);
  EXPECT_LT(layout.groups()[1].top, second_top);
  EXPECT_LT(layout.content_height(), full_height);
  layout.set_collapsed(0, false);
  EXPECT_EQ(layout.groups()[1].top, second_top);
  EXPECT_EQ(layout.content_height(), full_height);
}

TEST(RankGroups, ClickingAHeaderTogglesItsRankAndTheFrameSkipsHiddenLanes) {
  TimelineSession session(two_ranks(), "two ranks");
  session.set_screen_rect({0, 0, 1000, 800});
  session.fit_all();
  const auto header_y = [&](std::size_t group) {
    return session.area().screen_y(session.layout().groups()[group].top) + 4;
  };
  const std::size_t boxes_before = session.build_frame().boxes.size();
  session.click(500, header_y(0));
  EXPECT_TRUE(session.layout().groups()[0].collapsed);
  EXPECT_FALSE(session.layout().groups()[1].collapsed);
  EXPECT_EQ(session.build_frame().boxes.size(), boxes_before / 2);
  session.click(500, header_y(0));
  EXPECT_FALSE(session.layout().groups()[0].collapsed);
  EXPECT_EQ(session.build_frame().boxes.size(), boxes_before);
}

TEST(RankGroups, SelectingAnEventOfACollapsedRankExpandsIt) {
  TimelineSession session(two_ranks(), "two ranks");
  session.set_screen_rect({0, 0, 1000, 800});
  const std::uint32_t track = session.layout().lanes()[2].track;
  // Fold rank 1, then select its span as the findings panel would.
  session.click(500, session.area().screen_y(session.layout().groups()[1].top) + 4);
  ASSERT_TRUE(session.layout().groups()[1].collapsed);
  session.select(trace::EventRef{trace::EventKind::kSpan, track, 0});
  EXPECT_FALSE(session.layout().groups()[1].collapsed);
  EXPECT_NE(session.layout().lane_of_track(track), nullptr);
}

}  // namespace
}  // namespace tscope::gui
