#pragma once
// A deterministic synthetic timeline for the viewer benchmark: four host threads of operators
// (each with two children, one holding a grandchild), one GPU stream with a kernel per operator
// and a GPU utilisation counter every 100 µs; sized by event count. Spans carry no side-table
// detail, like the profiler's plain ranges.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tscope/trace/trace_builder.h"

namespace tscope::gui::bench {

inline constexpr int kHostThreads = 4;
// Per operator: the op, two children, a grandchild and its kernel.
inline constexpr std::uint64_t kEventsPerOp = 5;
inline constexpr trace::TimeNs kCounterPeriod = 100'000;

inline trace::Trace synthetic_timeline(std::uint64_t target_events) {
  using namespace tscope::trace;
  TraceBuilder builder;
  std::mt19937_64 random(11);
  const std::uint32_t process =
      builder.add_process({1, builder.intern("train"), kEmptyString, -1, 0});
  std::vector<std::uint32_t> threads;
  for (int thread = 0; thread < kHostThreads; ++thread) {
    threads.push_back(builder.add_track({TrackKind::kHostThread,
                                         builder.intern("thread " + std::to_string(thread)),
                                         process, thread, -1, -1, thread}));
  }
  const std::uint32_t stream = builder.add_track(
      {TrackKind::kGpuStream, builder.intern("stream 7"), process, -1, 0, 7, kHostThreads});
  const std::uint32_t counter =
      builder.add_track({TrackKind::kCounter, builder.intern("GPU utilization"), process, -1, 0, -1,
                         kHostThreads + 1});
  std::vector<StringId> names;
  for (int name = 0; name < 48; ++name)
    names.push_back(builder.intern("op_" + std::to_string(name)));
  std::uniform_int_distribution<TimeNs> op_length(2'000, 60'000);
  std::uniform_int_distribution<std::size_t> pick(0, names.size() - 1);

  std::vector<TimeNs> thread_now(kHostThreads, 1'000'000'000);
  TimeNs gpu_free_at = thread_now[0];
  TimeNs next_sample = thread_now[0];
  std::uint64_t events = 0;
  SpanRecord span;
  const auto add = [&](std::uint32_t track, TimeNs start, TimeNs end, Category category) {
    span.start = start;
    span.end = end;
    span.name = names[pick(random)];
    span.category = category;
    builder.add_span(track, span);
  };
  for (std::uint64_t op = 0; events + kEventsPerOp <= target_events; ++op) {
    const auto thread = static_cast<std::size_t>(op % kHostThreads);
    const TimeNs start = thread_now[thread];
    const TimeNs length = op_length(random);
    add(threads[thread], start, start + length, Category::kCpuOp);
    add(threads[thread], start + length / 10, start + length / 2, Category::kCpuOp);
    add(threads[thread], start + length / 2 + 100, start + length - 100, Category::kCpuOp);
    add(threads[thread], start + length / 5, start + length / 3, Category::kRuntimeApi);
    const TimeNs kernel_start = std::max(gpu_free_at, start + length / 3) + 500;
    add(stream, kernel_start, kernel_start + length / 2, Category::kKernel);
    gpu_free_at = kernel_start + length / 2;
    thread_now[thread] = start + length + 1'000;
    events += kEventsPerOp;
    while (next_sample < thread_now[thread] && events < target_events) {
      builder.add_counter_sample(counter, next_sample, static_cast<double>(op % 100));
      next_sample += kCounterPeriod;
      ++events;
    }
  }
  return builder.finalize();
}

}  // namespace tscope::gui::bench
