// Memory per loaded event of real traces, as `tscope view` holds them (load_trace, the lane
// layout): the ResNet-50 Kineto trace of ../shared and, when they were made, the large Kineto
// trace of bench/trace/large_kineto_trace.cpp and a recorded run of the training example (the
// demo's CNN). Counted from capacities (memory_footprint) and cross-checked with what loading
// added to resident memory.

#include <benchmark/benchmark.h>

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

void BM_RealTraceMemoryPerEvent(benchmark::State& state) {
  const auto path = trace_path(state.range(0));
  if (!std::filesystem::exists(path)) return state.SkipWithError("trace not found");
  gui::MemoryFootprint footprint;
  double resident = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::status_bytes("VmRSS");
    const trace::Trace loaded = trace::load_trace(path);
    const gui::LaneLayout layout(loaded);
    resident = static_cast<double>(bench::status_bytes("VmRSS") - before);
    footprint = gui::memory_footprint(loaded, layout);
  }
  state.counters["events"] = static_cast<double>(footprint.events);
  state.counters["bytes_per_event"] = footprint.bytes_per_event();
  state.counters["resident_bytes_per_event"] = resident / static_cast<double>(footprint.events);
}
BENCHMARK(BM_RealTraceMemoryPerEvent)
    ->ArgName("trace")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
