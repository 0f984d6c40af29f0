#pragma once
// Valid but hostile traces, for the analyzer's tests (tests/reliability) and the viewer's
// (tests/gui): negative durations, spans that overlap without nesting, duplicate correlation ids,
// times at the limits of what a trace holds (2^62 ns either way, so that no duration overflows
// int64), memory events with absurd sizes, and a million tracks.

#include <cstdint>
#include <limits>
#include <string>

#include "trace_records.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/time_range.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::testing {

// Kineto-style JSON: two profiler steps, runtime calls and kernels that share correlation ids, a
// span and a copy with negative durations (and bytes), spans that overlap without nesting, and
// events at the ends of the microsecond range that still fits int64 nanoseconds (beyond the time
// range: the reader skips them).
inline trace::Trace kineto_with_negative_durations_overlaps_and_duplicate_correlations() {
  const std::string json = R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1000,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":-500},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":100,"dur":300},
{"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":200,"dur":300},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1120,"dur":5,"args":{"correlation":7}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":130,"dur":400,"args":{"correlation":7,"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":300,"dur":900,"args":{"correlation":7,"device":0,"stream":7}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1500,"dur":-10,"args":{"correlation":7,"device":0,"stream":7,"bytes":-1}},
{"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":2,"ts":9223372036854,"dur":1},
{"ph":"X","cat":"cpu_op","name":"early","pid":1,"tid":2,"ts":-9223372036854,"dur":1}
]})";
  return trace::read_chrome_json(trace::ChromeJsonInput::from_bytes(json, "hostile.json"));
}

// Appends processes, tracks, spans and memory events by hand, with any times and sizes.
struct HostileTraceBuilder {
  trace::TraceBuilder builder;
  std::uint32_t process = 0;

  HostileTraceBuilder() {
    trace::Process info;
    info.pid = 1;
    info.name = builder.intern("hostile");
    process = builder.add_process(info);
  }
  std::uint32_t track(trace::TrackKind kind, const std::string& name, std::int64_t thread) {
    trace::TrackInfo info = track_info(builder, process, kind, name);
    info.thread_id = thread;
    return builder.add_track(info);
  }
  void span(std::uint32_t track, const char* name, trace::Category category, trace::TimeNs start,
            trace::TimeNs end, std::uint32_t correlation = 0) {
    trace::SpanRecord record = named_span(builder, name, category, start, end);
    record.correlation_id = correlation;
    builder.add_span(track, record);
  }
  void memory(std::uint32_t track, trace::TimeNs time, trace::MemoryAction action,
              std::uint64_t address, std::uint64_t bytes, std::uint64_t total) {
    trace::MemoryRecord record =
        memory_record(builder, time, action, address, bytes, "aten::empty");
    record.device = 0;
    record.total_allocated = total;
    record.total_reserved = total;
    builder.add_memory_event(track, record);
  }
};

// Steps, a launch and its kernel and an op at both ends of the time range, and on the GPU's memory
// pool allocations of 2^64 - 1 and 2^63 bytes at the start that are never freed, a free of an
// address never allocated, and one address allocated twice without a free, at the end.
inline trace::Trace at_the_limits_of_the_time_range() {
  constexpr trace::TimeNs kMax = trace::kMaxAbsTimeNs;
  constexpr trace::TimeNs kMin = -trace::kMaxAbsTimeNs;
  constexpr std::uint64_t kHugeBytes = std::numeric_limits<std::uint64_t>::max();
  HostileTraceBuilder hostile;
  const std::uint32_t main = hostile.track(trace::TrackKind::kHostThread, "main", 1);
  const std::uint32_t gpu = hostile.track(trace::TrackKind::kGpuStream, "stream 7", 0);
  const std::uint32_t pool = hostile.track(trace::TrackKind::kMemoryPool, "device 0", 0);
  hostile.span(main, "step 0", trace::Category::kStep, kMin, kMin + 1'000'000);
  hostile.span(main, "step 1", trace::Category::kStep, kMax - 1'000'000, kMax);
  hostile.span(main, "cudaLaunchKernel", trace::Category::kRuntimeApi, kMax - 900'000,
               kMax - 899'000, 5);
  hostile.span(gpu, "gemm", trace::Category::kKernel, kMax - 800'000, kMax - 2, 5);
  hostile.span(main, "aten::mm", trace::Category::kCpuOp, kMin + 10, kMin + 100);
  hostile.memory(pool, kMin + 20, trace::MemoryAction::kAlloc, 0x1000, kHugeBytes, kHugeBytes);
  hostile.memory(pool, kMin + 30, trace::MemoryAction::kAlloc, 0x1800, std::uint64_t{1} << 63,
                 kHugeBytes);
  hostile.memory(pool, kMax - 500'000, trace::MemoryAction::kFree, 0x2000, kHugeBytes, 0);
  hostile.memory(pool, kMax - 400'000, trace::MemoryAction::kAlloc, 0x3000, 1 << 20, kHugeBytes);
  hostile.memory(pool, kMax - 300'000, trace::MemoryAction::kAlloc, 0x3000, kHugeBytes, kHugeBytes);
  return hostile.builder.finalize();
}

// One span across the whole time range, with a short one inside it at the clock's zero.
inline trace::Trace one_span_across_the_time_range() {
  HostileTraceBuilder whole;
  const std::uint32_t only = whole.track(trace::TrackKind::kHostThread, "main", 1);
  whole.span(only, "everything", trace::Category::kCpuOp, -trace::kMaxAbsTimeNs,
             trace::kMaxAbsTimeNs);
  whole.span(only, "inside", trace::Category::kCpuOp, -5, 5);
  return whole.builder.finalize();
}

// A million host threads of one span each, the first a step.
inline trace::Trace with_a_million_tracks() {
  constexpr int kTracks = 1'000'000;
  HostileTraceBuilder hostile;
  for (int t = 0; t < kTracks; ++t) {
    const std::uint32_t track =
        hostile.track(trace::TrackKind::kHostThread, "thread " + std::to_string(t), t + 1);
    hostile.span(track, t == 0 ? "step 0" : "work",
                 t == 0 ? trace::Category::kStep : trace::Category::kCpuOp, t, t + 1000);
  }
  return hostile.builder.finalize();
}

}  // namespace tscope::testing
