// Import of a large Kineto trace (written by large_kineto_trace into /tmp, never committed)
// against a simdjson DOM parse of the same file in the same binary: time, and peak resident
// memory over the run as a multiple of the file's size. The reader streams the file through
// fixed windows, so its peak is the model; the DOM parse holds the text and its tape.
//
//   build/ci/bench/large_kineto_trace /tmp/tscope_large_kineto.json
//   build/ci/bench/bench_trace --benchmark_filter=Large --benchmark_repetitions=3

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <filesystem>
#include <string>

#include "large_trace_path.h"
#include "process_memory.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::trace::bench {
namespace {

using tscope::bench::large_kineto_trace_path;
using tscope::bench::reset_peak_resident;
using tscope::bench::status_bytes;

void report(benchmark::State& state, std::uint64_t file_bytes, std::uint64_t peak_bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes));
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
  state.counters["peak_MB"] = static_cast<double>(peak_bytes) / 1e6;
  state.counters["peak_per_file_byte"] =
      static_cast<double>(peak_bytes) / static_cast<double>(file_bytes);
}

// The reference: load the file and parse it into simdjson's DOM, a fresh parser each time as a
// command-line tool that opens one trace would.
void BM_LargeSimdjsonDomParse(benchmark::State& state) {
  const auto path = large_kineto_trace_path();
  if (!std::filesystem::exists(path)) return state.SkipWithError("run large_kineto_trace first");
  std::uint64_t peak = 0;
  for (auto _ : state) {
    reset_peak_resident();
    const std::uint64_t before = status_bytes("VmRSS");
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path.string()).get(text) != simdjson::SUCCESS) {
      return state.SkipWithError("cannot read the large trace");
    }
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(text).get(root) != simdjson::SUCCESS) {
      return state.SkipWithError("simdjson rejected the large trace");
    }
    benchmark::DoNotOptimize(root);
    peak = status_bytes("VmHWM") - before;
  }
  report(state, std::filesystem::file_size(path), peak);
}
BENCHMARK(BM_LargeSimdjsonDomParse)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Iterations(1);

void BM_LargeChromeJsonImport(benchmark::State& state) {
  const auto path = large_kineto_trace_path();
  if (!std::filesystem::exists(path)) return state.SkipWithError("run large_kineto_trace first");
  std::uint64_t peak = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    reset_peak_resident();
    const std::uint64_t before = status_bytes("VmRSS");
    const Trace trace = read_chrome_json(path);
    const TraceCounts counts = trace.counts();
    events = counts.spans + counts.instants + counts.counter_samples + counts.memory_events;
    peak = status_bytes("VmHWM") - before;
  }
  report(state, std::filesystem::file_size(path), peak);
  state.counters["events"] = static_cast<double>(events);
}
BENCHMARK(BM_LargeChromeJsonImport)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Iterations(1);

}  // namespace
}  // namespace tscope::trace::bench
