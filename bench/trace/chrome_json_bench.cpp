// Chrome JSON throughput: import MB/s against a raw simdjson DOM parse of the same bytes in the
// same binary (the reader should reach at least half of it), and export MB/s. Inputs: the
// largest real Kineto trace of ../shared (decompressed, 35 MB), a synthetic one written by our
// own exporter, and a small real Chrome trace (777 KB, less than one window), where what the
// import costs besides its parse (buffers, threads) shows.

#include <benchmark/benchmark.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "synthetic_trace.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/chrome_json_writer.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::trace::bench {
namespace {

constexpr std::uint64_t kSyntheticSpans = 200'000;

std::filesystem::path temp_path(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string(name) + "_" + std::to_string(::getpid()) + ".json");
}

const Trace& synthetic_trace() {
  static const Trace trace = [] {
    TraceBuilder builder;
    emit_host_spans(builder, kSyntheticSpans);
    return builder.finalize();
  }();
  return trace;
}

// A trace of ../shared/data/traces, or nothing where ../shared is not installed.
std::optional<ChromeJsonInput> shared_trace(const char* name) {
  const auto path = std::filesystem::path(TSCOPE_SHARED_DATA_DIR) / "traces" / name;
  if (!std::filesystem::exists(path)) return std::nullopt;
  return ChromeJsonInput::read_file(path);
}

const ChromeJsonInput* kineto_input() {
  static const auto input =
      shared_trace("kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  return input ? &*input : nullptr;
}

const ChromeJsonInput* synthetic_input() {
  static const ChromeJsonInput input = [] {
    const auto path = temp_path("bench_synthetic_input");
    write_chrome_json(synthetic_trace(), path);
    auto loaded = ChromeJsonInput::read_file(path);
    std::filesystem::remove(path);
    return loaded;
  }();
  return &input;
}

const ChromeJsonInput* small_input() {
  static const auto input = shared_trace("chrome/speedscope_chrome65_simple_timeline.json");
  return input ? &*input : nullptr;
}

const ChromeJsonInput* input_for(const benchmark::State& state) {
  return state.range(0) == 0 ? kineto_input() : synthetic_input();
}

void set_bytes(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
}

// The reference: simdjson's DOM parse alone, with a parser reused across iterations as the
// reader's own parse would be on a warm machine. Both benchmarks count the CPU time of the whole
// process: the import parses its windows on a second thread, which the calling thread's CPU time
// would leave out.
void raw_simdjson_parse(benchmark::State& state, const ChromeJsonInput* input) {
  if (input == nullptr) return state.SkipWithError("../shared traces not installed");
  simdjson::dom::parser parser;
  for (auto _ : state) {
    simdjson::dom::element root;
    if (parser.parse(input->padded_data(), input->json().size(), false).get(root) !=
        simdjson::SUCCESS) {
      return state.SkipWithError("simdjson rejected the input");
    }
    benchmark::DoNotOptimize(root);
  }
  set_bytes(state, input->json().size());
}

void chrome_json_import(benchmark::State& state, const ChromeJsonInput* input) {
  if (input == nullptr) return state.SkipWithError("../shared traces not installed");
  std::uint64_t spans = 0;
  for (auto _ : state) {
    const Trace trace = read_chrome_json(*input);
    spans = trace.counts().spans;
    benchmark::DoNotOptimize(spans);
  }
  set_bytes(state, input->json().size());
  state.counters["spans"] = static_cast<double>(spans);
}

// Both sides of the comparison over the same inputs, timed the same way.
void large_inputs(benchmark::internal::Benchmark* bench) {
  bench->Arg(0)
      ->Arg(1)
      ->ArgName("synthetic")
      ->Unit(benchmark::kMillisecond)
      ->MeasureProcessCPUTime()
      ->UseRealTime();
}
void small_input_timing(benchmark::internal::Benchmark* bench) {
  bench->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
}

void BM_RawSimdjsonParse(benchmark::State& state) {
  raw_simdjson_parse(state, input_for(state));
}
BENCHMARK(BM_RawSimdjsonParse)->Apply(large_inputs);

void BM_ChromeJsonImport(benchmark::State& state) {
  chrome_json_import(state, input_for(state));
}
BENCHMARK(BM_ChromeJsonImport)->Apply(large_inputs);

void BM_RawSimdjsonParseSmallTrace(benchmark::State& state) {
  raw_simdjson_parse(state, small_input());
}
BENCHMARK(BM_RawSimdjsonParseSmallTrace)->Apply(small_input_timing);

void BM_ChromeJsonImportSmallTrace(benchmark::State& state) {
  chrome_json_import(state, small_input());
}
BENCHMARK(BM_ChromeJsonImportSmallTrace)->Apply(small_input_timing);

void BM_ChromeJsonExport(benchmark::State& state) {
  const Trace& trace = synthetic_trace();
  const auto path = temp_path("bench_export");
  for (auto _ : state)
    write_chrome_json(trace, path);
  set_bytes(state, std::filesystem::file_size(path));
  std::filesystem::remove(path);
}
BENCHMARK(BM_ChromeJsonExport)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tscope::trace::bench
