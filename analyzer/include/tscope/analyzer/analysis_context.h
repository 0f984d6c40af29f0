#pragma once
// What every analysis needs to know about a trace besides its events: the options, the steps,
// the main host thread, the launch behind each GPU activity, each stream's GPU activities with
// their kind and step, and the GPU's busy intervals. Built once per report so that analyses stay
// pure functions of it and do not repeat this work (each per-event class costs a string match).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tscope/analyzer/steps.h"
#include "tscope/trace/memory_order.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

class CpuContention;

struct AnalysisOptions {
  std::optional<std::string> step_filter;  // regex over step names
  // Holistic Trace Analysis: idle gaps between kernels shorter than this are launch overhead
  // ("kernel wait"). Its consecutive_kernel_delay is documented as 30 ns but compared with gaps in
  // the trace's microseconds, so 30 µs is what it applies.
  trace::TimeNs kernel_wait_ns = 30'000;
  // Nsight Systems' gpu_gaps rule reports GPU idle stretches from 500 ms by default.
  trace::TimeNs gpu_gap_ns = 500'000'000;
  // Holistic Trace Analysis' kernel launch statistics cut-offs.
  trace::TimeNs launch_delay_ns = 100'000;
  trace::TimeNs slow_runtime_ns = 50'000;
  // Kernels further apart than this on a stream do not form one fusable chain.
  trace::TimeNs fusion_max_gap_ns = 50'000;
  std::size_t top_count = 10;
  // Keep every stretch of the critical path (CriticalPath::segments), which the viewer highlights;
  // the reports need only their sums.
  bool keep_path_segments = false;
  // The CPU's measured peaks for the roofline of CPU traces (0: unknown, no CPU roofline); a
  // trace's "cpu.peak_flops" and "cpu.peak_bytes_per_second" metadata are used when these are 0.
  double cpu_peak_flops = 0;
  double cpu_peak_bytes_per_second = 0;
};

struct TimeBreakdown;
struct StreamActivities;

// A kernel, copy, memset or collective on a GPU stream, classified once for every analysis.
struct GpuActivity {
  std::uint32_t index = 0;  // span index on the stream's track
  std::uint32_t step = 0;   // step_of_gpu_activity(); steps().steps.size() when in none
  std::uint8_t kind = 0;    // GpuWork (analyzer/src/event_classes.h), never kNone
};

// The GPU activities of one stream, in start order, and the longest of them (for windowed
// visits of the track).
struct GpuStream {
  std::uint32_t track = 0;
  trace::TimeNs longest = 0;
  std::vector<GpuActivity> activities;
};

// A stretch of time during which a GPU ran something, and the activity that opened it.
struct BusyInterval {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  trace::EventRef first;
};

class AnalysisContext {
 public:
  // Throws AnalyzerError when the step filter is invalid or selects nothing.
  AnalysisContext(const trace::Trace& trace, AnalysisOptions options);

  const trace::Trace& trace() const { return *trace_; }
  const AnalysisOptions& options() const { return options_; }
  const StepSet& steps() const { return steps_; }
  double step_count() const { return static_cast<double>(steps_.steps.size()); }
  // The host thread that drives training (the step ranges' thread, else the busiest thread).
  std::uint32_t main_thread() const { return main_thread_; }
  bool has_gpu() const { return !gpu_busy_.empty(); }
  // GPU kernels, copies and memsets of all devices merged into busy stretches, in time order.
  const std::vector<BusyInterval>& gpu_busy() const { return gpu_busy_; }
  // The runtime or driver call that launched a GPU activity, when a flow says so. Inline: every
  // analysis asks it for every activity.
  std::optional<trace::EventRef> launch_of(trace::EventRef gpu_activity) const {
    if (gpu_activity.kind != trace::EventKind::kSpan ||
        gpu_activity.track >= launch_by_span_.size())
      return std::nullopt;
    const std::vector<std::uint64_t>& launches = launch_by_span_[gpu_activity.track];
    if (gpu_activity.index >= launches.size() || launches[gpu_activity.index] == kNoLaunch)
      return std::nullopt;
    return trace::EventRef::unpack(launches[gpu_activity.index]);
  }
  // The step a GPU activity belongs to: that of the host call that launched it, else (no launch
  // record: graph replays, work queued before capture) the step its start falls in;
  // steps().steps.size() when neither is in a step.
  std::size_t step_of_gpu_activity(trace::EventRef gpu_activity) const;
  // Every GPU stream track (with or without activities), in track order.
  const std::vector<GpuStream>& gpu_streams() const { return gpu_streams_; }
  // compute_time_breakdown(*this), computed on first use: several analyses build on it.
  const TimeBreakdown& time_breakdown() const;
  // build_stream_activities(*this), computed on first use: the per-stream idle breakdown and
  // launch queue both replay them.
  const std::vector<StreamActivities>& stream_activities() const;
  // Every memory event of every pool in one time order, computed on first use: each memory replay
  // of the report walks it.
  const trace::MemoryOrder& memory_order() const;
  // The host threads busy over time against the recorded CPUs (cpu_contention.h, internal),
  // computed on first use: every what-if replay of a loader edit reads it.
  const CpuContention& cpu_contention() const;

 private:
  void classify_gpu_activities();

  const trace::Trace* trace_;
  AnalysisOptions options_;
  StepSet steps_;
  std::uint32_t main_thread_ = trace::kNoIndex;
  std::vector<GpuStream> gpu_streams_;
  std::vector<BusyInterval> gpu_busy_;
  // Per track, per span: the packed launch call of that GPU activity, or kNoLaunch (empty for
  // tracks without launched work). A direct index: every analysis asks for every activity.
  static constexpr std::uint64_t kNoLaunch = ~std::uint64_t{0};
  std::vector<std::vector<std::uint64_t>> launch_by_span_;
  mutable std::shared_ptr<const TimeBreakdown> time_breakdown_;
  mutable std::shared_ptr<const std::vector<StreamActivities>> stream_activities_;
  mutable std::shared_ptr<const trace::MemoryOrder> memory_order_;
  mutable std::shared_ptr<const CpuContention> cpu_contention_;
};

}  // namespace tscope::analyzer
