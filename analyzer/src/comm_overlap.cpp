// Communication/compute overlap of one rank, as Holistic Trace Analysis defines it
// (hta/analyzers/communication_analysis.py): communication kernels merged into one union, compute
// kernels into another (memcpy and memset are neither), and the time both run over the time
// communication runs. Over the whole trace, as HTA's include_last_profiler_step mode, and again
// within the steps alone.

#include <algorithm>
#include <set>

#include "event_classes.h"
#include "gpu_spans.h"
#include "interval_set.h"
#include "trace_names.h"
#include "tscope/analyzer/rank_summary.h"

namespace tscope::analyzer {
namespace {

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

// Time of `interval` that no interval of `merged` covers.
trace::TimeNs time_outside(const TimeInterval& interval, const std::vector<TimeInterval>& merged) {
  auto at = std::upper_bound(
      merged.begin(), merged.end(), interval.start,
      [](trace::TimeNs time, const TimeInterval& piece) { return time < piece.end; });
  trace::TimeNs covered = 0;
  for (; at != merged.end() && at->start < interval.end; ++at)
    covered += std::min(at->end, interval.end) - std::max(at->start, interval.start);
  return interval.end - interval.start - covered;
}

bool starts_within(const TimeInterval& interval, const std::vector<TimeInterval>& windows) {
  const auto after = std::upper_bound(
      windows.begin(), windows.end(), interval.start,
      [](trace::TimeNs time, const TimeInterval& window) { return time < window.start; });
  return after != windows.begin() && interval.start < (after - 1)->end;
}

// Communication events with their intervals, in the same order.
struct CommunicationEvents {
  std::vector<TimeInterval> intervals;
  std::vector<trace::EventRef> events;

  void add(trace::TimeNs start, trace::TimeNs end, trace::EventRef event) {
    intervals.push_back({start, end});
    events.push_back(event);
  }
};

CommOverlap overlap_of(CommunicationEvents communication, std::vector<TimeInterval> compute,
                       bool gpu, const StepSet& steps) {
  const std::vector<TimeInterval> compute_union = merge_intervals(std::move(compute));
  std::vector<TimeInterval> windows;
  windows.reserve(steps.steps.size());
  for (const Step& step : steps.steps)
    windows.push_back({step.start, step.end});
  windows = merge_intervals(std::move(windows));
  CommOverlap overlap;
  for (std::size_t i = 0; i < communication.intervals.size(); ++i) {
    const TimeInterval& interval = communication.intervals[i];
    if (!steps.whole_trace && !starts_within(interval, windows)) continue;
    const auto exposed = static_cast<double>(time_outside(interval, compute_union));
    if (!overlap.longest_exposed || exposed > overlap.longest_exposed_ns) {
      overlap.longest_exposed = communication.events[i];
      overlap.longest_exposed_ns = exposed;
    }
  }
  const std::vector<TimeInterval> communication_union =
      merge_intervals(std::move(communication.intervals));
  const OverlapTimes whole_trace = overlap_times(communication_union, compute_union);
  overlap.gpu = gpu;
  overlap.communication_ns = whole_trace.communication_ns;
  overlap.compute_ns = whole_trace.compute_ns;
  overlap.overlapped_ns = whole_trace.overlapped_ns;
  overlap.in_steps = steps.whole_trace
                         ? whole_trace
                         : overlap_times(intersect_intervals(communication_union, windows),
                                         intersect_intervals(compute_union, windows));
  return overlap;
}

CommOverlap gpu_overlap(const trace::Trace& trace, const StepSet& steps) {
  CommunicationEvents communication;
  std::vector<TimeInterval> compute;
  for_each_gpu_span(trace, [&](const trace::SpanColumns& spans, std::uint32_t i, EventRef span) {
    const GpuWork work = gpu_work(spans.category[i], trace.string(spans.name[i]));
    if (work == GpuWork::kCommunication) communication.add(spans.start[i], spans.end(i), span);
    if (work == GpuWork::kCompute) compute.push_back({spans.start[i], spans.end(i)});
  });
  if (communication.intervals.empty() && compute.empty()) return {};
  return overlap_of(std::move(communication), std::move(compute), true, steps);
}

// Without GPU work: the collectives' host spans against the engine ops of the threads that run no
// collective, less the time those threads wait (a thread blocked in a wait computes nothing even
// when the wait is inside an op).
CommOverlap host_overlap(const trace::Trace& trace, const StepSet& steps) {
  std::set<std::uint32_t> communication_threads;
  CommunicationEvents communication;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != Category::kCommunication) continue;
      communication_threads.insert(track_index);
      communication.add(spans.start[i], spans.end(i), {trace::EventKind::kSpan, track_index, i});
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
      if (spans.category[i] == Category::kCpuOp) ops.push_back({spans.start[i], spans.end(i)});
      if (spans.category[i] == Category::kSynchronization ||
          spans.category[i] == Category::kDataWait) {
        waits.push_back({spans.start[i], spans.end(i)});
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
