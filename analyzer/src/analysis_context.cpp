#include "tscope/analyzer/analysis_context.h"

#include <algorithm>
#include <utility>

#include "cpu_contention.h"
#include "event_classes.h"
#include "memory_replay.h"
#include "stream_activities.h"
#include "trace_names.h"
#include "tscope/analyzer/time_breakdown.h"

namespace tscope::analyzer {
namespace {

// The thread with the most time in top-level host activity: where a trace without step ranges
// runs its training loop.
std::uint32_t busiest_host_thread(const trace::Trace& trace) {
  std::uint32_t best = trace::kNoIndex;
  TimeNs best_time = -1;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    TimeNs busy = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (spans.depth[i] == 0 &&
          host_activity(spans.category[i], trace.string(spans.name[i])) != HostActivity::kNone) {
        busy += spans.end(i) - spans.start[i];
      }
    }
    if (busy > best_time) {
      best_time = busy;
      best = track_index;
    }
  }
  return best;
}

std::vector<BusyInterval> merge_gpu_activity(const trace::Trace& trace,
                                             const std::vector<GpuStream>& streams) {
  std::vector<BusyInterval> merged;
  const auto add = [&](std::uint32_t track, std::uint32_t index) {
    const trace::SpanColumns& spans = trace.track(track).spans();
    const BusyInterval interval{spans.start[index], spans.end(index),
                                EventRef{EventKind::kSpan, track, index}};
    if (!merged.empty() && interval.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, interval.end);
    } else {
      merged.push_back(interval);
    }
  };
  // One stream whose activities start at distinct times, as most do: already in the one order
  // any sort by start gives, so merged as they come.
  const GpuStream* only = nullptr;
  std::size_t streams_with_work = 0;
  for (const GpuStream& stream : streams) {
    if (stream.activities.empty()) continue;
    only = &stream;
    ++streams_with_work;
  }
  if (streams_with_work == 1) {
    const trace::SpanColumns& spans = trace.track(only->track).spans();
    const auto starts_before = [&](const GpuActivity& a, const GpuActivity& b) {
      return spans.start[a.index] < spans.start[b.index];
    };
    const std::vector<GpuActivity>& activities = only->activities;
    if (std::adjacent_find(activities.begin(), activities.end(),
                           [&](const GpuActivity& a, const GpuActivity& b) {
                             return !starts_before(a, b);
                           }) == activities.end()) {
      for (const GpuActivity& each : activities)
        add(only->track, each.index);
      return merged;
    }
  }
  // Otherwise sorted by start: ties keep the order the sort gives them, which picks each
  // stretch's first activity. The sort moves 16-byte keys; its order depends only on the starts.
  struct Key {
    TimeNs start;
    std::uint32_t stream;
    std::uint32_t index;
  };
  std::vector<Key> keys;
  for (std::uint32_t s = 0; s < streams.size(); ++s) {
    const trace::SpanColumns& spans = trace.track(streams[s].track).spans();
    for (const GpuActivity& each : streams[s].activities)
      keys.push_back({spans.start[each.index], s, each.index});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) { return a.start < b.start; });
  for (const Key& key : keys)
    add(streams[key.stream].track, key.index);
  return merged;
}

}  // namespace

AnalysisContext::AnalysisContext(const trace::Trace& trace, AnalysisOptions options)
    : trace_(&trace),
      options_(std::move(options)),
      steps_(find_steps(trace, options_.step_filter)) {
  main_thread_ = steps_.track != trace::kNoIndex ? steps_.track : busiest_host_thread(trace);
  launch_by_span_.resize(trace.tracks().size());
  for (const trace::Flow& flow : trace.flows()) {
    if (flow.kind != trace::FlowKind::kLaunchToKernel || flow.to.kind != EventKind::kSpan) continue;
    std::vector<std::uint64_t>& launches = launch_by_span_[flow.to.track];
    if (launches.empty()) launches.assign(trace.track(flow.to.track).spans().size(), kNoLaunch);
    // Flows are sorted by their start: the first one stands, as before with several.
    if (launches[flow.to.index] == kNoLaunch) launches[flow.to.index] = flow.from.pack();
  }
  classify_gpu_activities();
  gpu_busy_ = merge_gpu_activity(trace, gpu_streams_);
}

void AnalysisContext::classify_gpu_activities() {
  const trace::Trace& trace = *trace_;
  // Kernel names are few and repeat: each is matched once (kNone marks one not yet matched).
  std::vector<GpuWork> kernel_work;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = track.spans();
    GpuStream stream{track_index, 0, {}};
    stream.activities.reserve(spans.size());
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      GpuWork kind = GpuWork::kNone;
      if (spans.category[i] == trace::Category::kKernel) {
        if (kernel_work.size() <= spans.name[i])
          kernel_work.resize(spans.name[i] + 1, GpuWork::kNone);
        GpuWork& known = kernel_work[spans.name[i]];
        if (known == GpuWork::kNone)
          known = gpu_work(spans.category[i], trace.string(spans.name[i]));
        kind = known;
      } else {
        kind = gpu_work(spans.category[i], {});
      }
      if (kind == GpuWork::kNone) continue;
      const auto step = static_cast<std::uint32_t>(
          step_of_gpu_activity(EventRef{EventKind::kSpan, track_index, i}));
      stream.activities.push_back({i, step, static_cast<std::uint8_t>(kind)});
      stream.longest = std::max(stream.longest, spans.end(i) - spans.start[i]);
    }
    stream.activities.shrink_to_fit();
    gpu_streams_.push_back(std::move(stream));
  }
}

std::size_t AnalysisContext::step_of_gpu_activity(EventRef gpu_activity) const {
  if (const auto launch = launch_of(gpu_activity))
    return steps_.step_at(trace_->track(launch->track).spans().start[launch->index]);
  return steps_.step_at(trace_->track(gpu_activity.track).spans().start[gpu_activity.index]);
}

const TimeBreakdown& AnalysisContext::time_breakdown() const {
  if (!time_breakdown_)
    time_breakdown_ = std::make_shared<const TimeBreakdown>(compute_time_breakdown(*this));
  return *time_breakdown_;
}

const std::vector<StreamActivities>& AnalysisContext::stream_activities() const {
  if (!stream_activities_) {
    stream_activities_ =
        std::make_shared<const std::vector<StreamActivities>>(build_stream_activities(*this));
  }
  return *stream_activities_;
}

const CpuContention& AnalysisContext::cpu_contention() const {
  if (!cpu_contention_) cpu_contention_ = std::make_shared<const CpuContention>(*this);
  return *cpu_contention_;
}

const trace::MemoryOrder& AnalysisContext::memory_order() const {
  if (!memory_order_) memory_order_ = std::make_shared<const trace::MemoryOrder>(*trace_);
  return *memory_order_;
}

}  // namespace tscope::analyzer
