// The memory panel's cost, headless: building its series once (when the panel is first opened)
// and sampling it for one frame (one stack per pixel column of a 1180 px panel) at full view,
// 1/1000 of the trace and 20 µs, for 1M and 10M memory events, against the viewer's 8 ms frame
// budget; the same for its segments view (sampling and the pixel runs a frame draws).

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <random>
#include <string>

#include "tscope/gui/memory_timeline.h"
#include "tscope/gui/segment_timeline.h"
#include "tscope/trace/allocator_segments.h"
#include "tscope/trace/trace_builder.h"

namespace {

using namespace tscope;

constexpr std::size_t kPanelColumns = 1180;

// Training-like steps until `events` memory events: 50 allocations 1 µs apart, made by
// `allocation(step, block)`, then their frees in reverse order, all but the step's first.
// `before_step(step)` runs first and may add events of its own at `time`.
template <typename Allocation, typename BeforeStep>
void add_steps(trace::TraceBuilder& builder, std::uint32_t pool, std::uint64_t events,
               trace::TimeNs& time, Allocation&& allocation, BeforeStep&& before_step) {
  std::uint64_t written = 0;
  std::vector<trace::MemoryRecord> step;
  for (std::uint64_t step_index = 0; written < events; ++step_index) {
    before_step(step_index);
    step.clear();
    for (int block = 0; block < 50 && written < events; ++block, ++written) {
      trace::MemoryRecord record = allocation(step_index, block);
      record.time = time += 1000;
      builder.add_memory_event(pool, record);
      step.push_back(record);
    }
    for (std::size_t block = step.size(); block-- > 1 && written < events; ++written) {
      trace::MemoryRecord record = step[block];
      record.time = time += 1000;
      record.action = trace::MemoryAction::kFree;
      builder.add_memory_event(pool, record);
    }
  }
}

// One pool of training-like memory: blocks from 20 ops under 4 scopes, parameters alive
// throughout.
trace::Trace synthetic_memory(std::uint64_t events) {
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto pool = builder.add_track(
      {trace::TrackKind::kMemoryPool, builder.intern("host memory"), process, -1, -1, -1, 0});
  std::vector<trace::StringId> ops;
  ops.reserve(20);
  for (int op = 0; op < 20; ++op)
    ops.push_back(builder.intern("op" + std::to_string(op)));
  const trace::StringId scopes[] = {builder.intern("forward"), builder.intern("backward"),
                                    builder.intern("optimizer step"), builder.intern("load batch")};
  std::mt19937_64 random(5);
  trace::TimeNs time = 0;
  std::uint64_t address = 0x1000;
  add_steps(
      builder, pool, events, time,
      [&](std::uint64_t, int) {
        trace::MemoryRecord record;
        record.address = address++;
        record.bytes = 4096 + random() % (1 << 20);
        record.owner_op = ops[random() % ops.size()];
        record.scope = scopes[random() % 4];
        return record;
      },
      [](std::uint64_t) {});
  return builder.finalize();
}

// A caching allocator's trace: 64 segments of 20 MiB, each step cutting its blocks from one of
// them; every 1000 steps the cache is emptied, each segment given back and taken again.
trace::Trace synthetic_segments(std::uint64_t events) {
  trace::TraceBuilder builder;
  const auto process =
      builder.add_process({1, builder.intern("train"), trace::kEmptyString, -1, 0});
  const auto thread = builder.add_track(
      {trace::TrackKind::kHostThread, builder.intern("main"), process, 1, -1, -1, 0});
  const auto pool = builder.add_track(
      {trace::TrackKind::kMemoryPool, builder.intern("GPU memory"), process, -1, 0, -1, 1});
  const trace::StringId op = builder.intern("matmul");
  const trace::StringId address_key = builder.intern("address");
  const trace::StringId bytes_key = builder.intern("bytes");
  const trace::StringId device_key = builder.intern("device");
  constexpr std::uint64_t kSegments = 64;
  constexpr std::uint64_t kSegmentBytes = 20 << 20;
  trace::TimeNs time = 0;
  const auto segments = [&](std::string_view name) {
    for (std::uint64_t segment = 0; segment < kSegments; ++segment) {
      trace::InstantRecord record;
      record.time = time;
      record.name = builder.intern(name);
      record.args = {{address_key, static_cast<std::int64_t>((segment + 1) * kSegmentBytes)},
                     {bytes_key, static_cast<std::int64_t>(kSegmentBytes)},
                     {device_key, std::int64_t{0}}};
      builder.add_instant(thread, record);
    }
  };
  std::mt19937_64 random(5);
  std::uint64_t offset = 0;
  add_steps(
      builder, pool, events, time,
      [&](std::uint64_t step, int block) {
        if (block == 0) offset = 0;
        trace::MemoryRecord record;
        record.address = (step % kSegments + 1) * kSegmentBytes + offset;
        record.bytes = 512 * (1 + random() % 512);
        record.device = 0;
        record.owner_op = op;
        offset += record.bytes;
        return record;
      },
      [&](std::uint64_t step) {
        if (step % 1000 != 0) return;
        time += 1000;
        if (step > 0) segments(trace::kSegmentFreeInstant);
        segments(trace::kSegmentAllocInstant);
      });
  return builder.finalize();
}

// `make(events)`, made once per maker and event count and kept for every benchmark that asks.
template <typename Made>
const Made& once_per_count(std::int64_t events, Made (*make)(std::uint64_t)) {
  static std::map<std::pair<Made (*)(std::uint64_t), std::int64_t>, std::unique_ptr<Made>> made;
  auto& slot = made[{make, events}];
  if (!slot) slot = std::make_unique<Made>(make(static_cast<std::uint64_t>(events)));
  return *slot;
}

const trace::Trace& trace_of(std::int64_t events) {
  return once_per_count(events, synthetic_memory);
}

const trace::Trace& segment_trace_of(std::int64_t events) {
  return once_per_count(events, synthetic_segments);
}

// The middle of `trace` at a benchmark's zoom: 0 the whole trace, 1 a thousandth of it, 2 20 µs.
gui::TimeRange zoomed_range(const trace::Trace& trace, std::int64_t zoom) {
  const trace::TimeNs begin = trace.begin_time();
  const trace::TimeNs length = trace.end_time() - begin;
  const trace::TimeNs shown = zoom == 0 ? length : zoom == 1 ? length / 1000 : 20'000;
  return {begin + length / 2 - shown / 2, begin + length / 2 + shown / 2};
}
const gui::MemoryTimeline& timeline_of(std::int64_t events) {
  static std::map<std::int64_t, std::unique_ptr<gui::MemoryTimeline>> timelines;
  auto& slot = timelines[events];
  if (!slot)
    slot = std::make_unique<gui::MemoryTimeline>(trace_of(events), gui::MemoryGrouping::kOwnerOp);
  return *slot;
}

// The build benchmarks: one timed build of each trace size.
void one_build_per_size(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("events")
      ->Arg(1'000'000)
      ->Arg(10'000'000)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

// The frame benchmarks: each trace size at each zoom of zoomed_range.
void every_size_and_zoom(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"events", "zoom"})
      ->ArgsProduct({{1'000'000, 10'000'000}, {0, 1, 2}})
      ->Unit(benchmark::kMillisecond);
}

void BM_MemoryTimelineBuild(benchmark::State& state) {
  const trace::Trace& trace = trace_of(state.range(0));
  for (auto _ : state) {
    const gui::MemoryTimeline timeline(trace, gui::MemoryGrouping::kOwnerOp);
    benchmark::DoNotOptimize(timeline.peak_bytes());
  }
}
BENCHMARK(BM_MemoryTimelineBuild)->Apply(one_build_per_size);

void BM_MemoryPanelSample(benchmark::State& state) {
  const trace::Trace& trace = trace_of(state.range(0));
  const gui::MemoryTimeline& timeline = timeline_of(state.range(0));
  const gui::TimeRange range = zoomed_range(trace, state.range(1));
  for (auto _ : state) {
    const std::vector<gui::MemoryColumn> columns = timeline.sample(range, kPanelColumns);
    benchmark::DoNotOptimize(columns.data());
  }
}
BENCHMARK(BM_MemoryPanelSample)->Apply(every_size_and_zoom);

void BM_SegmentTimelineBuild(benchmark::State& state) {
  const trace::Trace& trace = segment_trace_of(state.range(0));
  for (auto _ : state) {
    const gui::SegmentTimeline timeline(trace);
    benchmark::DoNotOptimize(timeline.peak_reserved());
  }
}
BENCHMARK(BM_SegmentTimelineBuild)->Apply(one_build_per_size);

// One frame of the segments view: a column per pixel sampled, and the runs it draws at the
// panel's 100 px height.
void BM_SegmentViewFrame(benchmark::State& state) {
  const trace::Trace& trace = segment_trace_of(state.range(0));
  static std::map<std::int64_t, std::unique_ptr<gui::SegmentTimeline>> timelines;
  auto& timeline = timelines[state.range(0)];
  if (!timeline) timeline = std::make_unique<gui::SegmentTimeline>(trace);
  const gui::TimeRange range = zoomed_range(trace, state.range(1));
  const double scale = 100.0 / static_cast<double>(timeline->peak_reserved());
  for (auto _ : state) {
    std::size_t runs = 0;
    for (const gui::SegmentColumn& column : timeline->sample(range, kPanelColumns))
      runs += gui::column_runs(column, scale).allocated.size();
    benchmark::DoNotOptimize(runs);
  }
}
BENCHMARK(BM_SegmentViewFrame)->Apply(every_size_and_zoom);

}  // namespace
