#pragma once
// A deterministic synthetic training trace of host spans (steps > ops > sub-ops on a few threads)
// with realistic durations and a small vocabulary of names, for the trace benchmarks.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tscope/trace/trace_sink.h"

namespace tscope::trace::bench {

// Emits about `target_spans` spans into `sink` and returns how many it emitted.
inline std::uint64_t emit_host_spans(TraceSink& sink, std::uint64_t target_spans,
                                     int thread_count = 4) {
  std::mt19937_64 random(42);
  std::vector<StringId> op_names;
  for (int op = 0; op < 48; ++op)
    op_names.push_back(sink.intern("aten::op_" + std::to_string(op)));
  const StringId step_name = sink.intern("ProfilerStep");
  const std::uint32_t process = sink.add_process({1000, sink.intern("train"), kEmptyString, -1, 0});
  std::vector<std::uint32_t> tracks;
  for (int thread = 0; thread < thread_count; ++thread) {
    tracks.push_back(
        sink.add_track({TrackKind::kHostThread, sink.intern("thread " + std::to_string(thread)),
                        process, 1000 + thread, -1, -1, thread}));
  }
  std::uniform_int_distribution<int> pick_op(0, static_cast<int>(op_names.size()) - 1);
  std::uniform_int_distribution<TimeNs> op_length(2'000, 60'000);
  std::uniform_int_distribution<TimeNs> gap(100, 3'000);
  std::uint64_t emitted = 0;
  const std::uint64_t per_thread = target_spans / tracks.size();
  for (const std::uint32_t track : tracks) {
    TimeNs now = 1'000'000'000;
    std::uint64_t thread_spans = 0;
    SpanRecord span;
    while (thread_spans < per_thread) {
      const TimeNs step_start = now;
      for (int op = 0; op < 200 && thread_spans < per_thread; ++op) {
        const TimeNs op_start = now + gap(random);
        const TimeNs op_end = op_start + op_length(random);
        span.start = op_start;
        span.end = op_end;
        span.name = op_names[static_cast<std::size_t>(pick_op(random))];
        span.category = Category::kCpuOp;
        sink.add_span(track, span);
        ++thread_spans;
        // Every other op runs a nested op inside it, as composite operators do.
        if (op % 2 == 0 && thread_spans < per_thread) {
          span.start = op_start + (op_end - op_start) / 4;
          span.end = op_end - (op_end - op_start) / 4;
          span.name = op_names[static_cast<std::size_t>(pick_op(random))];
          sink.add_span(track, span);
          ++thread_spans;
        }
        now = op_end;
      }
      span.start = step_start;
      span.end = now + 1;
      span.name = step_name;
      span.category = Category::kStep;
      sink.add_span(track, span);
      ++thread_spans;
      now += 10'000;
    }
    emitted += thread_spans;
  }
  return emitted;
}

}  // namespace tscope::trace::bench
