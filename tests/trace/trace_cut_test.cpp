// Cutting real traces to a window (trace_cut.h and `tscope convert --range/--steps`): every span
// that overlaps the window kept whole and no other, the flows between kept events, the memory
// state and counter values at the window's start, the window recorded in the trace, and the
// analyzer's steps limited to it.

#include "tscope/trace/trace_cut.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::trace {
namespace {

const char* const kResnet =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";

using tscope::testing::scratch_path;

using SpanKey = std::tuple<std::uint32_t, TimeNs, TimeNs, std::string>;  // track, start, end, name

std::multiset<SpanKey> spans_of(const Trace& trace, const CaptureWindow* window) {
  std::multiset<SpanKey> spans;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const SpanColumns& columns = trace.track(track).spans();
    for (std::size_t span = 0; span < columns.size(); ++span) {
      // Written out here rather than shared with the cutter: overlap of [start, end] and
      // [begin, end), a zero-length span at the window's start counting as inside.
      if (window != nullptr) {
        const TimeNs start = columns.start[span];
        const TimeNs end = columns.end(span);
        const bool overlaps = start < window->end &&
                              (end > window->begin || (start == end && start == window->begin));
        if (!overlaps) continue;
      }
      spans.emplace(track, columns.start[span], columns.end(span),
                    std::string(trace.string(columns.name[span])));
    }
  }
  return spans;
}

class TraceCut : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path path = testing::shared_data_path(kResnet);
    TSCOPE_REQUIRE_FILE(path);
    trace_ = load_trace(path);
    // The middle third: spans, flows and allocations cross both edges.
    const TimeNs third = (trace_.end_time() - trace_.begin_time()) / 3;
    window_ = {trace_.begin_time() + third, trace_.begin_time() + 2 * third};
  }

  Trace trace_;
  CaptureWindow window_;
};

TEST_F(TraceCut, KeepsEverySpanThatOverlapsTheWindowWholeAndNoOther) {
  const Trace cut = cut_trace(trace_, window_);
  const std::multiset<SpanKey> expected = spans_of(trace_, &window_);
  ASSERT_GT(expected.size(), 0u);
  ASSERT_LT(expected.size(), trace_.counts().spans);
  EXPECT_EQ(spans_of(cut, nullptr), expected);
  // Some kept span starts before the window: it is kept whole, not clipped.
  EXPECT_LT(cut.begin_time(), window_.begin);
  EXPECT_EQ(cut.tracks().size(), trace_.tracks().size());
}

TEST_F(TraceCut, KeepsTheFlowsWhoseTwoEndsAreKept) {
  const Trace cut = cut_trace(trace_, window_);
  using FlowKey = std::tuple<FlowKind, std::uint64_t, SpanKey, SpanKey>;
  const auto key_of = [](const Trace& trace, const EventRef& ref) {
    const SpanColumns& spans = trace.track(ref.track).spans();
    return SpanKey{ref.track, spans.start[ref.index], spans.end(ref.index),
                   std::string(trace.string(spans.name[ref.index]))};
  };
  const std::multiset<SpanKey> kept = spans_of(trace_, &window_);
  std::multiset<FlowKey> expected;
  for (const Flow& flow : trace_.flows()) {
    ASSERT_EQ(flow.from.kind, EventKind::kSpan);
    const SpanKey from = key_of(trace_, flow.from);
    const SpanKey to = key_of(trace_, flow.to);
    if (kept.contains(from) && kept.contains(to)) expected.emplace(flow.kind, flow.id, from, to);
  }
  std::multiset<FlowKey> actual;
  for (const Flow& flow : cut.flows())
    actual.emplace(flow.kind, flow.id, key_of(cut, flow.from), key_of(cut, flow.to));
  ASSERT_GT(expected.size(), 0u);
  EXPECT_EQ(actual, expected);
}

TEST_F(TraceCut, KeepsTheAllocationsLiveAtTheWindowsStart) {
  const Trace cut = cut_trace(trace_, window_);
  std::size_t tracks_with_memory = 0;
  std::size_t live_at_begin = 0;
  for (std::uint32_t track = 0; track < trace_.tracks().size(); ++track) {
    const MemoryColumns& before = trace_.track(track).memory();
    if (before.size() == 0) continue;
    ++tracks_with_memory;
    std::map<std::pair<std::int32_t, std::uint64_t>, std::uint64_t> live;  // -> bytes
    std::size_t inside = 0;
    std::uint64_t allocated_at_begin = 0;
    for (std::size_t event = 0; event < before.size(); ++event) {
      const auto key = std::make_pair(before.device(event), before.address[event]);
      if (before.time[event] >= window_.end) break;
      if (before.time[event] >= window_.begin) {
        ++inside;
        continue;
      }
      allocated_at_begin = before.total_allocated[event];
      if (before.action(event) == MemoryAction::kAlloc) {
        live[key] = before.bytes[event];
      } else {
        live.erase(key);
      }
    }
    const MemoryColumns& after = cut.track(track).memory();
    std::map<std::pair<std::int32_t, std::uint64_t>, std::uint64_t> state;
    std::size_t after_begin = 0;
    for (std::size_t event = 0; event < after.size(); ++event) {
      EXPECT_GE(after.time[event], window_.begin);
      EXPECT_LT(after.time[event], window_.end);
      if (after.time[event] == window_.begin && after.action(event) == MemoryAction::kAlloc &&
          state.size() < live.size()) {
        state[{after.device(event), after.address[event]}] = after.bytes[event];
        EXPECT_EQ(after.total_allocated[event], allocated_at_begin);
      } else {
        ++after_begin;
      }
    }
    live_at_begin += live.size();
    EXPECT_EQ(state, live) << "track " << track;
    EXPECT_EQ(after_begin, inside) << "track " << track;
  }
  EXPECT_GT(tracks_with_memory, 0u);
  EXPECT_GT(live_at_begin, 0u);
}

TEST_F(TraceCut, RecordsItsWindowInEveryFormat) {
  const Trace cut = cut_trace(trace_, window_);
  for (const char* name : {"window.tsc", "window.json.gz"}) {
    save_trace(cut, scratch_path(name));
    const std::optional<CaptureWindow> read =
        capture_window(load_trace(scratch_path(name)).metadata());
    ASSERT_TRUE(read.has_value()) << name;
    EXPECT_EQ(read->begin, window_.begin) << name;
    EXPECT_EQ(read->end, window_.end) << name;
  }
}

// `tscope convert` of the ResNet-50 trace to `out` with `options`.
testing::CommandResult convert_resnet(const std::filesystem::path& out,
                                      const std::string& options) {
  return testing::run_tscope("convert " + testing::quoted(testing::shared_data_path(kResnet)) +
                             " " + testing::quoted(out) + " " + options);
}

TEST_F(TraceCut, ConvertStepsKeepsThoseStepsAndAnalyzeCountsOnlyThem) {
  const std::filesystem::path out = scratch_path("steps.tsc");
  const testing::CommandResult convert = convert_resnet(out, "--steps 6:7");
  ASSERT_EQ(convert.exit_code, 0) << convert.output;
  const Trace cut = load_trace(out);
  std::set<std::string> steps;
  for (const Track& track : cut.tracks()) {
    for (std::size_t span = 0; span < track.spans().size(); ++span) {
      if (track.spans().category[span] == Category::kStep)
        steps.insert(std::string(cut.string(track.spans().name[span])));
    }
  }
  // The steps either side end or start exactly at the window's edges, so they touch it only.
  EXPECT_EQ(steps, (std::set<std::string>{"ProfilerStep#6", "ProfilerStep#7"}));
  const testing::CommandResult analyze = testing::run_tscope("analyze " + testing::quoted(out));
  ASSERT_EQ(analyze.exit_code, 0) << analyze.output;
  EXPECT_NE(analyze.output.find("Steps: 2 steps"), std::string::npos) << analyze.output;
}

TEST_F(TraceCut, ConvertRangeWritesAnyOutputFormat) {
  const std::filesystem::path out = scratch_path("range.pftrace");
  const testing::CommandResult convert = convert_resnet(out, "--range 200ms:400ms");
  ASSERT_EQ(convert.exit_code, 0) << convert.output;
  EXPECT_NE(convert.output.find("(perfetto)"), std::string::npos) << convert.output;
  EXPECT_GT(std::filesystem::file_size(out), 0u);
}

TEST_F(TraceCut, ConvertRejectsMalformedOrMissingWindows) {
  const std::filesystem::path out = scratch_path("rejected.tsc");
  const std::pair<const char*, const char*> cases[] = {
      {"--range 2:1", "ends before it starts"},
      {"--range 1s", "not a range"},
      {"--range x:2", "not a duration"},
      {"--steps 3:x", "not a step number"},
      {"--steps 1:2", "no step numbered 1 to 2 (its steps: 5, 6, 7, 8, 9, 10)"},
      {"--range 1:2 --steps 1:2", "excludes"},
  };
  for (const auto& [options, message] : cases) {
    const testing::CommandResult result = convert_resnet(out, options);
    EXPECT_NE(result.exit_code, 0) << options;
    EXPECT_NE(result.output.find(message), std::string::npos) << options << ": " << result.output;
  }
}

}  // namespace
}  // namespace tscope::trace
