// Every analysis of `tscope analyze` over synthetic training traces of 1M and 10M events: time per
// report and peak memory beside the trace, against a plain pass that reads every span once.

#include <benchmark/benchmark.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "process_memory.h"
#include "training_trace.h"
#include "tscope/analyzer/critical_path.h"
#include "tscope/analyzer/report.h"
#include "tscope/analyzer/whatif.h"

namespace {

using namespace tscope;
using tscope::bench::reset_peak_resident;
using tscope::bench::status_bytes;

struct LoadedTrace {
  trace::Trace trace;
  std::uint64_t resident_bytes = 0;  // what building the trace added to the process
};

const LoadedTrace& trace_of(std::int64_t events) {
  static std::map<std::int64_t, std::unique_ptr<LoadedTrace>> traces;
  auto& slot = traces[events];
  if (!slot) {
    const std::uint64_t before = status_bytes("VmRSS");
    slot = std::make_unique<LoadedTrace>();
    slot->trace = analyzer::bench::synthetic_training_trace(static_cast<std::uint64_t>(events));
    slot->resident_bytes = status_bytes("VmRSS") - before;
  }
  return *slot;
}

void BM_AllAnalyses(benchmark::State& state) {
  const LoadedTrace& loaded = trace_of(state.range(0));
  const trace::TraceCounts counts = loaded.trace.counts();
  const std::uint64_t events = counts.spans + counts.memory_events;
  reset_peak_resident();
  const std::uint64_t resident_before = status_bytes("VmRSS");
  std::size_t findings = 0;
  for (auto _ : state) {
    const analyzer::Report report = analyzer::run_report(loaded.trace, {});
    findings = report.findings.size();
    benchmark::DoNotOptimize(findings);
  }
  const std::uint64_t peak_extra = status_bytes("VmHWM") - resident_before;
  state.counters["events"] = static_cast<double>(events);
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["trace_MiB"] = static_cast<double>(loaded.resident_bytes) / (1 << 20);
  state.counters["analysis_peak_MiB"] = static_cast<double>(peak_extra) / (1 << 20);
  state.counters["peak_over_trace"] =
      static_cast<double>(peak_extra) / static_cast<double>(loaded.resident_bytes);
}
BENCHMARK(BM_AllAnalyses)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// The critical path alone (graph, binding dependencies, slack, every step's walk) over a context
// built once, as run_report builds it for all analyses.
void BM_CriticalPath(benchmark::State& state) {
  const LoadedTrace& loaded = trace_of(state.range(0));
  const analyzer::AnalysisContext context(loaded.trace, {});
  std::size_t edges = 0;
  for (auto _ : state) {
    const analyzer::CriticalPath path = analyzer::compute_critical_path(context);
    edges = path.graph_edges;
    benchmark::DoNotOptimize(edges);
  }
  state.counters["graph_edges"] = static_cast<double>(edges);
}
BENCHMARK(BM_CriticalPath)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The what-if replay without edits (every step's graph, binding dependencies and two replays, one
// unedited and one edited) over a context built once: the figure a what-if costs beyond the load.
// The critical path above builds the same graphs, so the ratio of the two is the replay's own cost.
void BM_WhatIfReplay(benchmark::State& state) {
  const LoadedTrace& loaded = trace_of(state.range(0));
  const analyzer::AnalysisContext context(loaded.trace, {});
  const std::vector<analyzer::WhatIfEdit> edits{analyzer::parse_edit("kernel:sgemm*0.5")};
  std::size_t replayed = 0;
  for (auto _ : state) {
    const analyzer::WhatIfResult result = analyzer::predict_steps(context, edits);
    replayed = result.replayed_steps;
    benchmark::DoNotOptimize(replayed);
  }
  state.counters["replayed_steps"] = static_cast<double>(replayed);
}
BENCHMARK(BM_WhatIfReplay)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The floor: one pass reading every span's start and end.
void BM_PlainPassOverSpans(benchmark::State& state) {
  const LoadedTrace& loaded = trace_of(state.range(0));
  for (auto _ : state) {
    trace::TimeNs total = 0;
    for (const trace::Track& track : loaded.trace.tracks()) {
      const trace::SpanColumns& spans = track.spans();
      for (std::size_t i = 0; i < spans.size(); ++i)
        total += spans.end(i) - spans.start[i];
    }
    benchmark::DoNotOptimize(total);
  }
}
BENCHMARK(BM_PlainPassOverSpans)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
