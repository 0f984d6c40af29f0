// .tsc throughput and density on ~1M synthetic host spans: bytes per event, events per second
// written (whole trace and streaming) and read. The reference in the same binary is the plain
// fixed-width columns compressed with zstd at the same level, which shows what the delta/varint
// column encoding buys.

#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zstd.h>

#include <filesystem>
#include <vector>

#include "synthetic_trace.h"
#include "tscope/trace/trace_builder.h"
#include "tscope/trace/tsc_reader.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace::bench {
namespace {

constexpr std::uint64_t kSpans = 1'000'000;

const Trace& synthetic_trace() {
  static const Trace trace = [] {
    TraceBuilder builder;
    emit_host_spans(builder, kSpans);
    return builder.finalize();
  }();
  return trace;
}

std::filesystem::path bench_path(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string(name) + "_" + std::to_string(::getpid()) + ".tsc");
}

void set_event_counters(benchmark::State& state, std::uint64_t events, std::uint64_t bytes) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.counters["events"] = static_cast<double>(events);
  state.counters["bytes_per_event"] = static_cast<double>(bytes) / static_cast<double>(events);
}

void BM_TscWriteTrace(benchmark::State& state) {
  const Trace& trace = synthetic_trace();
  const auto path = bench_path("bench_write");
  for (auto _ : state)
    write_tsc(trace, path);
  set_event_counters(state, trace.counts().spans, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
BENCHMARK(BM_TscWriteTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

// What the profiler's background writer does: spans straight from the recorder into the stream.
void BM_TscStreamWrite(benchmark::State& state) {
  const auto path = bench_path("bench_stream");
  std::uint64_t events = 0;
  for (auto _ : state) {
    TscWriter writer(path);
    events = emit_host_spans(writer, kSpans);
    writer.close();
  }
  set_event_counters(state, events, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
BENCHMARK(BM_TscStreamWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TscRead(benchmark::State& state) {
  const Trace& trace = synthetic_trace();
  const auto path = bench_path("bench_read");
  write_tsc(trace, path);
  for (auto _ : state) {
    const TscReadResult result = read_tsc(path);
    benchmark::DoNotOptimize(result.trace.counts().spans);
  }
  set_event_counters(state, trace.counts().spans, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
BENCHMARK(BM_TscRead)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reference: the same spans as fixed-width columns (start, end, name, category), zstd level 3.
void BM_ReferenceRawColumnsZstd(benchmark::State& state) {
  const Trace& trace = synthetic_trace();
  std::vector<std::uint8_t> raw;
  for (const Track& track : trace.tracks()) {
    const SpanColumns& spans = track.spans();
    const auto append = [&](const auto& column) {
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(column.data());
      raw.insert(raw.end(), bytes, bytes + column.size() * sizeof(column[0]));
    };
    const std::vector<TimeNs> starts(spans.start.begin(), spans.start.end());
    std::vector<TimeNs> ends(spans.size());
    for (std::size_t span = 0; span < spans.size(); ++span)
      ends[span] = spans.end(span);
    const std::vector<StringId> names(spans.name.begin(), spans.name.end());
    append(starts);
    append(ends);
    append(names);
    append(spans.category);
  }
  std::vector<std::uint8_t> compressed(ZSTD_compressBound(raw.size()));
  std::size_t compressed_size = 0;
  for (auto _ : state) {
    compressed_size =
        ZSTD_compress(compressed.data(), compressed.size(), raw.data(), raw.size(), 3);
    benchmark::DoNotOptimize(compressed_size);
  }
  set_event_counters(state, trace.counts().spans, compressed_size);
}
BENCHMARK(BM_ReferenceRawColumnsZstd)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tscope::trace::bench

BENCHMARK_MAIN();
