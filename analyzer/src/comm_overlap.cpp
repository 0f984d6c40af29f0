// Communication/compute overlap of one rank, as Holistic Trace Analysis defines it
// (hta/analyzers/communication_analysis.py): communication kernels merged into one union, compute
// kernels into another (memcpy and memset are neither), and the time both run over the time
// communication runs. Over the whole trace, as HTA's include_last_profiler_step mode, and again
// within the steps alone.

#include <set>

#include "event_classes.h"
#include "interval_set.h"
#include "tscope/analyzer/rank_summary.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

// Time covered by both merged unions, as a merged union.
std::vector<TimeInterval> intersect_intervals(const std::vector<TimeInterval>& a,
                                              const std::vector<TimeInterval>& b) {
  return subtract_intervals(a, subtract_intervals(a, b));
}

OverlapTimes overlap_times(const std::vector<TimeInterval>& communication,
                           const std::vector<TimeInterval>& compute) {
  return {.communication_ns = static_cast<double>(covered_time(communication)),
          .compute_ns = static_cast<double>(covered_time(compute)),
          .overlapped_ns = static_cast<double>(shared_time(communication, compute))};
}

CommOverlap overlap_of(std::vector<TimeInterval> communication, std::vector<TimeInterval> compute,
                       bool gpu, const StepSet& steps) {
  const std::vector<TimeInterval> communication_union = merge_intervals(std::move(communication));
  const std::vector<TimeInterval> compute_union = merge_intervals(std::move(compute));
  const OverlapTimes whole_trace = overlap_times(communication_union, compute_union);
  CommOverlap overlap;
  overlap.gpu = gpu;
  overlap.communication_ns = whole_trace.communication_ns;
  overlap.compute_ns = whole_trace.compute_ns;
  overlap.overlapped_ns = whole_trace.overlapped_ns;
  if (steps.whole_trace) {
    overlap.in_steps = whole_trace;
  } else {
    std::vector<TimeInterval> windows;
    for (const Step& step : steps.steps)
      windows.push_back({step.start, step.end});
    windows = merge_intervals(std::move(windows));
    overlap.in_steps = overlap_times(intersect_intervals(communication_union, windows),
                                     intersect_intervals(compute_union, windows));
  }
  return overlap;
}

CommOverlap gpu_overlap(const trace::Trace& trace, const StepSet& steps) {
  std::vector<TimeInterval> communication;
  std::vector<TimeInterval> compute;
  for (const trace::Track& track : trace.tracks()) {
    if (track.info().kind != trace::TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const GpuWork work = gpu_work(spans.category[i], trace.string(spans.name[i]));
      if (work == GpuWork::kCommunication) communication.push_back({spans.start[i], spans.end[i]});
      if (work == GpuWork::kCompute) compute.push_back({spans.start[i], spans.end[i]});
    }
  }
  if (communication.empty() && compute.empty()) return {};
  return overlap_of(std::move(communication), std::move(compute), true, steps);
}

// Without GPU work: the collectives' host spans against the engine ops of the threads that run no
// collective, less the time those threads wait (a thread blocked in a wait computes nothing even
// when the wait is inside an op).
CommOverlap host_overlap(const trace::Trace& trace, const StepSet& steps) {
  std::set<std::uint32_t> communication_threads;
  std::vector<TimeInterval> communication;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != Category::kCommunication) continue;
      communication_threads.insert(track_index);
      communication.push_back({spans.start[i], spans.end[i]});
    }
  }
  std::vector<TimeInterval> compute;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread ||
        communication_threads.contains(track_index))
      continue;
    const trace::SpanColumns& spans = track.spans();
    std::vector<TimeInterval> ops;
    std::vector<TimeInterval> waits;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] == Category::kCpuOp) ops.push_back({spans.start[i], spans.end[i]});
      if (spans.category[i] == Category::kSynchronization ||
          spans.category[i] == Category::kDataWait) {
        waits.push_back({spans.start[i], spans.end[i]});
      }
    }
    for (const TimeInterval& piece :
         subtract_intervals(merge_intervals(std::move(ops)), merge_intervals(std::move(waits)))) {
      compute.push_back(piece);
    }
  }
  return overlap_of(std::move(communication), std::move(compute), false, steps);
}

}  // namespace

CommOverlap compute_comm_overlap(const trace::Trace& trace, const StepSet& steps) {
  CommOverlap overlap = gpu_overlap(trace, steps);
  if (overlap.gpu) return overlap;
  return host_overlap(trace, steps);
}

}  // namespace tscope::analyzer
