// The viewer's headless parts on real PyTorch profiler (Kineto) traces from ../shared.

#include <gtest/gtest.h>

#include <algorithm>

#include "test_data.h"
#include "tscope/gui/event_description.h"
#include "tscope/gui/hit_test.h"
#include "tscope/gui/lane_layout.h"
#include "tscope/gui/memory_footprint.h"
#include "tscope/gui/selection.h"
#include "tscope/gui/timeline_session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::gui {
namespace {

const std::filesystem::path kResnet = tscope::testing::shared_data_path(
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");

const trace::Trace& resnet() {
  static const trace::Trace loaded = trace::load_trace(kResnet);
  return loaded;
}

std::vector<DetailRow>::const_iterator find_row(const std::vector<DetailRow>& rows,
                                                std::string_view key) {
  return std::find_if(rows.begin(), rows.end(),
                      [&](const DetailRow& row) { return row.key == key; });
}

TEST(LaneLayoutOnKineto, HostThreadsComeBeforeTheirProcessPlotsAndGpuStreamsAfterThem) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const LaneLayout layout(resnet());
  std::vector<trace::TrackKind> python_kinds;
  for (const Lane& lane : layout.lanes()) {
    const trace::TrackInfo& info = resnet().track(lane.track).info();
    if (resnet().processes()[info.process].pid == 25738) python_kinds.push_back(info.kind);
  }
  ASSERT_EQ(python_kinds.size(), 4u);
  EXPECT_EQ(python_kinds[0], trace::TrackKind::kHostThread);
  EXPECT_EQ(python_kinds[1], trace::TrackKind::kHostThread);
  EXPECT_EQ(python_kinds[2], trace::TrackKind::kMemoryPool);
  EXPECT_EQ(python_kinds[3], trace::TrackKind::kMemoryPool);
}

TEST(LaneLayoutOnKineto, MemoryPoolsBecomePlotsScaledToTheirPeak) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const LaneLayout layout(resnet());
  const auto plots = std::count_if(
      layout.lanes().begin(), layout.lanes().end(),
      [](const Lane& lane) { return lane.kind == LaneKind::kMemory && lane.plot_max > 0; });
  EXPECT_EQ(plots, 2);
}

TEST(LaneLayoutOnKineto, LanesStackInOrderWithoutOverlapping) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const LaneLayout layout(resnet());
  float bottom = 0;
  for (const Lane& lane : layout.lanes()) {
    EXPECT_GE(lane.top, bottom) << lane.label;
    bottom = lane.top + lane.height();
    EXPECT_EQ(layout.lane_of_track(lane.track), &lane);
  }
  EXPECT_LE(bottom, layout.content_height());
}

TEST(EventDescriptionOnKineto, AKernelShowsItsLaunchGeometryAndItsLaunch) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const trace::Trace& trace = resnet();
  const auto kernel =
      std::find_if(trace.flows().begin(), trace.flows().end(), [&](const trace::Flow& f) {
        return f.kind == trace::FlowKind::kLaunchToKernel &&
               trace.track(f.to.track).spans().category[f.to.index] == trace::Category::kKernel;
      });
  ASSERT_NE(kernel, trace.flows().end());
  const auto flows = selection_flows(trace, kernel->to);
  const auto rows = describe_event(trace, kernel->to, trace.begin_time(), flows);
  EXPECT_NE(find_row(rows, "grid"), rows.end());
  EXPECT_NE(find_row(rows, "block"), rows.end());
  const auto launch = find_row(rows, "launched by");
  ASSERT_NE(launch, rows.end());
  EXPECT_NE(launch->value.find("cudaLaunchKernel"), std::string::npos) << launch->value;
}

TEST(SessionOnKineto, FullViewOfTheDenseTraceFoldsSpans) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  const TimelineFrame& frame = session.build_frame();
  EXPECT_TRUE(std::any_of(frame.boxes.begin(), frame.boxes.end(),
                          [](const HitBox& box) { return box.count > 1; }));
}

TEST(SessionOnKineto, ClickingAFoldedBlockZoomsIntoIt) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  const TimelineFrame& frame = session.build_frame();
  // A folded block is at least 3 px wide and may run under its neighbour: take one whose
  // centre is not covered by a later box.
  const auto centre = [](const HitBox& box) { return (box.x0 + box.x1) / 2; };
  const auto folded = std::find_if(frame.boxes.begin(), frame.boxes.end(), [&](const HitBox& box) {
    return box.count > 1 && box_at(frame, centre(box), box.y0 + 1) == &box;
  });
  ASSERT_NE(folded, frame.boxes.end());
  const HitBox box = *folded;
  session.click(centre(box), box.y0 + 1);
  EXPECT_LE(session.view().range().begin, box.begin);
  EXPECT_GE(session.view().range().end, box.end);
  EXPECT_LT(session.view().range().length(), (box.end - box.begin) * 2);
}

TEST(SessionOnKineto, ClickingASpanSelectsItAndItsFlows) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  const auto kernel = find_span_named(session.trace(), "volta_sgemm_64x64_nn");
  ASSERT_TRUE(kernel.has_value());
  session.select(kernel);
  session.zoom_to_selection();
  const TimelineFrame& frame = session.build_frame();
  const auto box = std::find_if(frame.boxes.begin(), frame.boxes.end(), [&](const HitBox& b) {
    return b.first == *kernel && b.count == 1;
  });
  ASSERT_NE(box, frame.boxes.end());
  session.select(std::nullopt);
  session.click((box->x0 + box->x1) / 2, box->y0 + 2);
  ASSERT_TRUE(session.selection().has_value());
  EXPECT_EQ(*session.selection(), *kernel);
  EXPECT_FALSE(session.selection_flows().empty());
}

TEST(SessionOnKineto, ClickingAnInstantMarkerSelectsTheInstant) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  const TimelineFrame& frame = session.build_frame();
  const auto marker = std::find_if(frame.boxes.begin(), frame.boxes.end(), [](const HitBox& box) {
    return box.first.kind == trace::EventKind::kInstant && box.count == 1;
  });
  ASSERT_NE(marker, frame.boxes.end());
  const trace::EventRef instant = marker->first;
  session.click((marker->x0 + marker->x1) / 2, (marker->y0 + marker->y1) / 2);
  ASSERT_TRUE(session.selection().has_value());
  EXPECT_EQ(*session.selection(), instant);
  const auto rows = describe_event(session.trace(), instant, session.origin(), {});
  EXPECT_NE(find_row(rows, "time"), rows.end());
}

TEST(SessionOnKineto, ClickingEmptySpaceClearsTheSelection) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  session.select(find_span_named(session.trace(), "volta_sgemm_64x64_nn"));
  session.build_frame();
  session.click(5, 36 + 2);  // the ruler
  EXPECT_FALSE(session.selection().has_value());
}

TEST(SessionOnKineto, SearchStepsThroughMatchesInTimeOrderAndWraps) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  session.search("aten::conv2d");
  const std::size_t count = session.search_match_count();
  ASSERT_GT(count, 1u);
  session.search_step(true);
  ASSERT_EQ(session.search_position(), 0u);
  const auto first = *session.selection();
  session.search_step(true);
  const auto second = *session.selection();
  const auto start_of = [&](trace::EventRef ref) {
    return session.trace().track(ref.track).spans().start[ref.index];
  };
  EXPECT_LE(start_of(first), start_of(second));
  session.search_step(false);
  session.search_step(false);
  EXPECT_EQ(session.search_position(), count - 1);
  EXPECT_GE(session.view().range().end, start_of(*session.selection()));
  EXPECT_LE(session.view().range().begin, start_of(*session.selection()));
}

TEST(SessionOnKineto, StepSelectorFramesAStep) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  ASSERT_FALSE(session.steps().whole_trace);
  ASSERT_GT(session.steps().steps.size(), 1u);
  session.show_step(1);
  const analyzer::Step& step = session.steps().steps[1];
  EXPECT_LE(session.view().range().begin, step.start);
  EXPECT_GE(session.view().range().end, step.end);
  EXPECT_LT(session.view().range().length(), (step.end - step.start) * 2);
}

TEST(SessionOnKineto, AFindingFramesItsEvidence) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.set_screen_rect({0, 36, 1180, 864});
  session.wait_for_analysis();
  ASSERT_TRUE(session.report().has_value());
  const auto& findings = session.report()->findings;
  const auto with_evidence =
      std::find_if(findings.begin(), findings.end(),
                   [](const analyzer::Finding& f) { return !f.evidence.empty(); });
  ASSERT_NE(with_evidence, findings.end());
  session.show_finding(static_cast<std::size_t>(with_evidence - findings.begin()));
  const trace::EventRef first = with_evidence->evidence.front();
  if (first.kind == trace::EventKind::kSpan) {
    EXPECT_EQ(session.selection(), first);
    const auto& spans = session.trace().track(first.track).spans();
    EXPECT_LE(session.view().range().begin, spans.start[first.index]);
    EXPECT_GE(session.view().range().end, spans.end(first.index));
  }
}

TEST(SessionOnKineto, StatisticsOfTheWholeViewCountEveryKernel) {
  TSCOPE_REQUIRE_FILE(kResnet);
  TimelineSession session(resnet(), "resnet");
  session.compute_statistics_for_view();
  ASSERT_TRUE(session.statistics().has_value());
  std::uint64_t kernels = 0;
  for (const SpanStatistic& row : session.statistics()->rows) {
    if (row.category == trace::Category::kKernel) kernels += row.count;
  }
  EXPECT_EQ(kernels,
            resnet().counts().spans_by_category[static_cast<int>(trace::Category::kKernel)]);
  const auto& rows = session.statistics()->rows;
  EXPECT_TRUE(std::is_sorted(
      rows.begin(), rows.end(),
      [](const SpanStatistic& a, const SpanStatistic& b) { return a.total > b.total; }));
}

TEST(MemoryFootprintOnKineto, CountsEveryLoadedEvent) {
  TSCOPE_REQUIRE_FILE(kResnet);
  const LaneLayout layout(resnet());
  const MemoryFootprint footprint = memory_footprint(resnet(), layout);
  const trace::TraceCounts counts = resnet().counts();
  EXPECT_EQ(footprint.events,
            counts.spans + counts.instants + counts.counter_samples + counts.memory_events);
}

}  // namespace
}  // namespace tscope::gui
