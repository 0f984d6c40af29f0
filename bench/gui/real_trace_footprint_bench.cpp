// Memory per loaded event of real traces, as `tscope view` holds them (load_trace, the lane
// layout): the ResNet-50 Kineto trace of ../shared and, when they were made, the large Kineto
// trace of bench/trace/large_kineto_trace.cpp and a recorded run of the training example (the
// demo's CNN). Counted from capacities (memory_footprint) and cross-checked with what loading
// added to resident memory: the process's first load, which also faults in the importer's code
// and thread stacks once, and a second load of the same trace after the first was dropped and
// the heap's free pages returned (`malloc_trim`), which holds only what grows with the trace.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "large_trace_path.h"
#include "process_memory.h"
#include "tscope/gui/lane_layout.h"
#include "tscope/gui/memory_footprint.h"
#include "tscope/trace/trace_io.h"

namespace {

using namespace tscope;

std::filesystem::path trace_path(std::int64_t which) {
  if (which == 0) {
    return std::filesystem::path(TSCOPE_SHARED_DATA_DIR) /
           "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";
  }
  if (which == 1) return bench::large_kineto_trace_path();
  // train_fashion_mnist --model cnn --steps 30 --trace /tmp/tscope_demo_cnn.tsc
  const char* demo = std::getenv("TSCOPE_DEMO_TRACE");
  return demo != nullptr ? demo : "/tmp/tscope_demo_cnn.tsc";
}

struct LoadedMemory {
  gui::MemoryFootprint footprint;
  std::uint64_t resident = 0;  // what the load and the layout added to the process
};

LoadedMemory load_and_measure(const std::filesystem::path& path) {
  const std::uint64_t before = bench::status_bytes("VmRSS");
  const trace::Trace loaded = trace::load_trace(path);
  const gui::LaneLayout layout(loaded);
  return {gui::memory_footprint(loaded, layout), bench::status_bytes("VmRSS") - before};
}

void BM_RealTraceMemoryPerEvent(benchmark::State& state) {
  const auto path = trace_path(state.range(0));
  if (!std::filesystem::exists(path)) return state.SkipWithError("trace not found");
  LoadedMemory first;
  LoadedMemory again;
  for (auto _ : state) {
    first = load_and_measure(path);
    malloc_trim(0);
    again = load_and_measure(path);
  }
  const auto events = static_cast<double>(first.footprint.events);
  state.counters["events"] = events;
  state.counters["bytes_per_event"] = first.footprint.bytes_per_event();
  state.counters["first_load_resident_bytes_per_event"] =
      static_cast<double>(first.resident) / events;
  state.counters["resident_bytes_per_event"] = static_cast<double>(again.resident) / events;
}
BENCHMARK(BM_RealTraceMemoryPerEvent)
    ->ArgName("trace")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
