// Communication/compute overlap of one rank, as Holistic Trace Analysis defines it
// (hta/analyzers/communication_analysis.py): communication kernels merged into one union, compute
// kernels into another (memcpy and memset are neither), and the time both run over the time
// communication runs. Over the whole trace, as HTA's include_last_profiler_step mode.

#include <set>

#include "event_classes.h"
#include "interval_set.h"
#include "tscope/analyzer/rank_summary.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

CommOverlap overlap_of(std::vector<TimeInterval> communication, std::vector<TimeInterval> compute,
                       bool gpu) {
  const std::vector<TimeInterval> communication_union = merge_intervals(std::move(communication));
  const std::vector<TimeInterval> compute_union = merge_intervals(std::move(compute));
  CommOverlap overlap;
  overlap.gpu = gpu;
  overlap.communication_ns = static_cast<double>(covered_time(communication_union));
  overlap.compute_ns = static_cast<double>(covered_time(compute_union));
  overlap.overlapped_ns = static_cast<double>(shared_time(communication_union, compute_union));
  return overlap;
}

CommOverlap gpu_overlap(const trace::Trace& trace) {
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
  return overlap_of(std::move(communication), std::move(compute), true);
}

// Without GPU work: the collectives' host spans against the engine ops of the threads that run no
// collective, less the time those threads wait (a thread blocked in a wait computes nothing even
// when the wait is inside an op).
CommOverlap host_overlap(const trace::Trace& trace) {
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
  return overlap_of(std::move(communication), std::move(compute), false);
}

}  // namespace

CommOverlap compute_comm_overlap(const trace::Trace& trace) {
  CommOverlap overlap = gpu_overlap(trace);
  if (overlap.gpu) return overlap;
  return host_overlap(trace);
}

}  // namespace tscope::analyzer
