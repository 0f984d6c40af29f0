// What capture costs the recorded program. Ranges are timed with the writer thread draining
// concurrently, into buffers large enough that nothing is dropped (the "dropped" counter shows
// it); the training step pair runs the same model with and without a session in one binary.

#include <benchmark/benchmark.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "fixed_batch_cnn.h"
#include "tscope/profiler/record.h"
#include "tscope/profiler/session.h"

namespace {

using namespace tscope;

// Enough iterations for a stable median, few enough that every event fits the buffer.
constexpr benchmark::IterationCount kRangeIterations = 2'000'000;
constexpr std::size_t kBenchBufferBytes = std::size_t{256} << 20;

std::filesystem::path bench_trace_path(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string("tscope-bench-") + name + "-" + std::to_string(getpid()) + ".tsc");
}

// A session around one benchmark run; reports its drops and removes its file.
class BenchSession {
 public:
  explicit BenchSession(const char* name)
      : session_({.output = bench_trace_path(name), .buffer_bytes_per_thread = kBenchBufferBytes}) {
    session_.start();
  }
  profiler::SessionSummary stop() {
    const profiler::SessionSummary summary = session_.stop();
    std::filesystem::remove(session_.options().output);
    return summary;
  }
  void stop(benchmark::State& state) {
    const profiler::SessionSummary summary = stop();
    state.counters["dropped"] = static_cast<double>(summary.dropped_events);
    state.counters["bytes_per_event"] =
        summary.events == 0
            ? 0.0
            : static_cast<double>(summary.bytes) / static_cast<double>(summary.events);
  }

 private:
  profiler::Session session_;
};

// A thread's first lap over its ring faults in the ring's pages as it writes them: on the 2-vCPU
// VMs of docs/PERFORMANCE.md the first repetitions of a range benchmark took twice as long as the
// later ones, which split the medians into bands by where the repetitions fell. The range
// benchmarks measure the steady state after that lap, which the calling thread goes through once
// here, in a session of its own.
void complete_first_ring_lap() {
  static const bool done = [] {
    BenchSession session("first-lap");
    // A plain range writes more than 32 bytes (its begin and end records), so this covers the
    // ring at least once; records the full ring cannot take are dropped, not written.
    for (std::size_t range = 0; range < kBenchBufferBytes / 32; ++range) {
      const profiler::Range lap("first ring lap");
      benchmark::ClobberMemory();
    }
    session.stop();
    return true;
  }();
  benchmark::DoNotOptimize(done);
}

void BM_RangeDisabled(benchmark::State& state) {
  for (auto _ : state) {
    const profiler::Range range("bench range");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RangeDisabled);

// The floor an enabled range is measured against: the two timestamps it takes (begin and end),
// with nothing stored.
void BM_TwoTimestamps(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(profiler::now_ticks());
    benchmark::DoNotOptimize(profiler::now_ticks());
  }
}
BENCHMARK(BM_TwoTimestamps);

void BM_RangeEnabled(benchmark::State& state) {
  complete_first_ring_lap();
  BenchSession session("range");
  for (auto _ : state) {
    const profiler::Range range("bench range");
    benchmark::ClobberMemory();
  }
  session.stop(state);
}
BENCHMARK(BM_RangeEnabled)->Iterations(kRangeIterations);

void BM_NvtxPushPopCaptured(benchmark::State& state) {
  complete_first_ring_lap();
  BenchSession session("nvtx");
  for (auto _ : state) {
    nvtxRangePushA("bench nvtx range");
    nvtxRangePop();
  }
  session.stop(state);
}
BENCHMARK(BM_NvtxPushPopCaptured)->Iterations(kRangeIterations);

// One CNN training step at batch 64 on fixed inputs; range(0) = 1 runs it under a session.
void BM_CnnTrainingStep(benchmark::State& state) {
  bench::FixedBatchCnn training;
  std::optional<BenchSession> session;
  if (state.range(0) == 1) session.emplace("training");
  std::int64_t step = 0;
  for (auto _ : state) {
    const profiler::StepRange range(step++);
    benchmark::DoNotOptimize(training.step());
  }
  if (session) session->stop(state);
  state.SetItemsProcessed(state.iterations() * bench::FixedBatchCnn::kBatch);
}
BENCHMARK(BM_CnnTrainingStep)
    ->ArgName("profiled")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
