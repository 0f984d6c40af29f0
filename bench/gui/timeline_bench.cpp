// The viewer's frame building, headless: CPU time to build one timeline frame (visible ranges by
// binary search, folding, ruler, plots) for 1M and 10M events at full view, mid zoom and deep
// zoom, against a budget of 8 ms, and the same for the large Kineto trace of
// bench/trace/large_kineto_trace.cpp when it was generated; and memory per loaded event (trace
// plus viewer indexes) against a budget of 32 bytes, counted from capacities and cross-checked
// with resident memory.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "large_trace_path.h"
#include "timeline_trace.h"
#include "tscope/gui/lane_layout.h"
#include "tscope/gui/memory_footprint.h"
#include "tscope/gui/timeline_frame.h"
#include "tscope/gui/window_layout.h"
#include "tscope/trace/trace_io.h"

namespace {

using namespace tscope;

std::uint64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

struct LoadedTimeline {
  trace::Trace trace;
  std::unique_ptr<gui::LaneLayout> layout;
  std::uint64_t resident = 0;  // what loading the trace and laying it out added to the process
};

// The synthetic trace goes through a .tsc file and load_trace, as `tscope view` opens one.
LoadedTimeline& timeline_of(std::int64_t events) {
  static std::map<std::int64_t, LoadedTimeline> loaded;
  LoadedTimeline& slot = loaded[events];
  if (!slot.layout) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("bench_gui_" + std::to_string(events) + ".tsc");
    trace::save_trace(gui::bench::synthetic_timeline(static_cast<std::uint64_t>(events)), path);
    const std::uint64_t before = resident_bytes();
    slot.trace = trace::load_trace(path);
    slot.layout = std::make_unique<gui::LaneLayout>(slot.trace);
    slot.resident = resident_bytes() - before;
    std::filesystem::remove(path);
  }
  return slot;
}

// Zoom levels: 0 shows everything, 1 shows 1/1000 of the trace, 2 shows 20 µs.
gui::TimeRange range_at_zoom(const trace::Trace& trace, std::int64_t zoom) {
  const trace::TimeNs begin = trace.begin_time();
  const trace::TimeNs length = trace.end_time() - begin;
  const trace::TimeNs middle = begin + length / 2;
  if (zoom == 0) return {begin, trace.end_time()};
  const trace::TimeNs shown = zoom == 1 ? length / 1000 : 20'000;
  return {middle - shown / 2, middle + shown / 2};
}

void build_frames(benchmark::State& state, const LoadedTimeline& loaded, std::int64_t zoom) {
  const gui::ScreenRect screen =
      gui::layout_window(gui::kScreenshotWidth, gui::kScreenshotHeight).timeline;
  gui::FrameRequest request;
  request.trace = &loaded.trace;
  request.layout = loaded.layout.get();
  request.view = gui::TimeView(range_at_zoom(loaded.trace, zoom), screen.x, screen.width);
  request.area = {screen.y, screen.bottom(), 0};
  request.origin = loaded.trace.begin_time();
  gui::TimelineFrame frame;
  for (auto _ : state) {
    gui::build_timeline_frame(request, frame);
    benchmark::DoNotOptimize(frame.rects.data());
  }
  std::size_t folded = 0;
  for (const gui::HitBox& box : frame.boxes)
    folded += box.count > 1 ? 1 : 0;
  state.counters["boxes"] = static_cast<double>(frame.boxes.size());
  state.counters["folded_boxes"] = static_cast<double>(folded);
  state.counters["rects"] = static_cast<double>(frame.rects.size());
}

void BM_BuildFrame(benchmark::State& state) {
  build_frames(state, timeline_of(state.range(0)), state.range(1));
}
BENCHMARK(BM_BuildFrame)
    ->ArgNames({"events", "zoom"})
    ->ArgsProduct({{1'000'000, 10'000'000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);

// The large Kineto trace of bench/trace/large_kineto_trace.cpp, opened as `tscope view` opens it.
void BM_BuildFrameLargeKineto(benchmark::State& state) {
  static LoadedTimeline loaded;
  if (!loaded.layout) {
    const std::filesystem::path path = bench::large_kineto_trace_path();
    if (!std::filesystem::exists(path)) return state.SkipWithError("run large_kineto_trace first");
    const std::uint64_t before = resident_bytes();
    loaded.trace = trace::load_trace(path);
    loaded.layout = std::make_unique<gui::LaneLayout>(loaded.trace);
    loaded.resident = resident_bytes() - before;
  }
  build_frames(state, loaded, state.range(0));
  state.counters["events"] =
      static_cast<double>(gui::memory_footprint(loaded.trace, *loaded.layout).events);
}
BENCHMARK(BM_BuildFrameLargeKineto)
    ->ArgName("zoom")
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMillisecond);

void BM_MemoryPerEvent(benchmark::State& state) {
  LoadedTimeline& loaded = timeline_of(state.range(0));
  gui::MemoryFootprint footprint;
  for (auto _ : state) {
    footprint = gui::memory_footprint(loaded.trace, *loaded.layout);
    benchmark::DoNotOptimize(footprint);
  }
  state.counters["events"] = static_cast<double>(footprint.events);
  state.counters["bytes_per_event"] = footprint.bytes_per_event();
  state.counters["viewer_bytes"] = static_cast<double>(footprint.viewer_bytes);
  state.counters["resident_bytes_per_event"] =
      static_cast<double>(loaded.resident) / static_cast<double>(footprint.events);
}
BENCHMARK(BM_MemoryPerEvent)->ArgName("events")->Arg(1'000'000)->Arg(10'000'000)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
