#include "dependency_graph.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "event_classes.h"
#include "trace_names.h"
#include "tscope/analyzer/stream_stats.h"

namespace tscope::analyzer {
namespace {

// Kineto's GPU-side synchronization records (cat "cuda_sync"), by name.
enum class SyncRecord : std::uint8_t { kStream, kContext, kEvent, kStreamWaitEvent, kNone };

SyncRecord sync_record(std::string_view name) {
  if (name == "Stream Sync") return SyncRecord::kStream;
  if (name == "Context Sync") return SyncRecord::kContext;
  if (name == "Event Sync") return SyncRecord::kEvent;
  if (name == "Stream Wait Event") return SyncRecord::kStreamWaitEvent;
  return SyncRecord::kNone;
}

std::optional<std::int64_t> integer_arg(const trace::Trace& trace, std::uint32_t track,
                                        std::uint32_t index, std::string_view key) {
  const trace::SpanDetail* detail = trace.span_detail(track, index);
  if (detail == nullptr) return std::nullopt;
  for (const trace::Arg& arg : trace.args(detail->args)) {
    if (trace.string(arg.key) != key) continue;
    if (const auto* value = std::get_if<std::int64_t>(&arg.value)) return *value;
    if (const auto* value = std::get_if<double>(&arg.value))
      return static_cast<std::int64_t>(*value);
  }
  return std::nullopt;
}

std::uint32_t correlation_of(const trace::Trace& trace, std::uint32_t track, std::uint32_t index) {
  return trace.track(track).spans().correlation_id(index);
}

}  // namespace

DependencyGraph::DependencyGraph(const AnalysisContext& context)
    : context_(&context), trace_(&context.trace()), selected_(trace_->tracks().size()) {
  const trace::Trace& trace = *trace_;
  const auto on_host = [&](const trace::EventRef& ref) {
    return ref.kind == trace::EventKind::kSpan &&
           trace.track(ref.track).info().kind == TrackKind::kHostThread;
  };
  for (const trace::Flow& flow : trace.flows()) {
    const bool enqueue = flow.kind == trace::FlowKind::kEnqueue;
    if ((flow.kind != trace::FlowKind::kHandoff && !enqueue) || !on_host(flow.from) ||
        !on_host(flow.to)) {
      continue;
    }
    handoffs_.push_back(
        {trace.track(flow.to.track).spans().start[flow.to.index], flow.from, flow.to, enqueue});
  }
  std::sort(handoffs_.begin(), handoffs_.end(),
            [](const Handoff& a, const Handoff& b) { return a.wait_start < b.wait_start; });
}

void DependencyGraph::build(TimeNs begin, TimeNs end) {
  const trace::Trace& trace = *trace_;
  events_.clear();
  edges_.clear();
  stream_count_ = 0;
  select_spans(begin, end);
  // About two host-order edges per host span and three per GPU activity: one allocation.
  edges_.reserve(2 * events_.size() + events_.size() / 2);
  waits_.assign(2 * events_.size(), 0);
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    const TrackKind kind = trace.track(track).info().kind;
    if (kind == TrackKind::kHostThread) {
      add_host_order(track);
    } else if (kind == TrackKind::kGpuStream) {
      add_stream(track);
    }
  }
  add_synchronizations();
  add_handoffs(begin, end);
  index_edges();
}

GpuWork DependencyGraph::gpu_work_of(std::uint32_t track, std::uint32_t index) {
  const trace::SpanColumns& spans = trace_->track(track).spans();
  if (spans.category[index] != Category::kKernel) return gpu_work(spans.category[index], {});
  return gpu_work_.get(
      *trace_, spans.category[index], spans.name[index],
      [](Category category, std::string_view name) { return gpu_work(category, name); });
}

TimeNs DependencyGraph::arrival(const DependencyEdge& edge) const {
  switch (edge.kind) {
    case EdgeKind::kHostOrder:
      return is_blocked_wait(edge) ? time(edge.from) : time(edge.to);
    case EdgeKind::kGpuActivity:
      return time(edge.to);
    case EdgeKind::kLaunch:
      return std::min(time(end_node(edge.owner)), time(edge.to));
    default:
      return time(edge.from);
  }
}

void DependencyGraph::find_binding_edges(std::vector<std::uint32_t>& binding,
                                         std::vector<TimeNs>& latest) const {
  binding.assign(node_count(), kNoEdge);
  latest.assign(node_count(), std::numeric_limits<TimeNs>::min());
  for (std::uint32_t e = 0; e < edges_.size(); ++e) {
    const TimeNs arrives = arrival(edges_[e]);
    if (arrives > latest[edges_[e].to]) {
      latest[edges_[e].to] = arrives;
      binding[edges_[e].to] = e;
    }
  }
}

void DependencyGraph::merge_run(std::vector<std::uint32_t>& spans, std::size_t first) {
  const auto run = spans.begin() + static_cast<std::ptrdiff_t>(first);
  if (!std::is_sorted(run, spans.end())) std::sort(run, spans.end());
  if (run == spans.begin() || run == spans.end() || *(run - 1) <= *run) return;
  merged_.resize(spans.size());
  std::merge(spans.begin(), run, run, spans.end(), merged_.begin());
  spans.swap(merged_);
}

void DependencyGraph::select_spans(TimeNs begin, TimeNs end) {
  const trace::Trace& trace = *trace_;
  for (std::vector<std::uint32_t>& spans : selected_)
    spans.clear();
  // Per depth, spans at one depth do not overlap: the ones in the window are a contiguous run,
  // found by binary search, so a parent open over the whole run costs nothing per window. Each
  // run is in start (and index) order, so the track's spans stay sorted by merging the runs.
  const auto overlapping = [&](std::uint32_t track) {
    const trace::Track& row = trace.track(track);
    const trace::SpanColumns& spans = row.spans();
    std::vector<std::uint32_t>& selected = selected_[track];
    for (std::size_t depth = 0; depth < row.depth_count(); ++depth) {
      const trace::SpanIndices at_depth = row.spans_at_depth(depth);
      const std::size_t first = selected.size();
      for (std::size_t k = row.first_span_ending_after(depth, begin);
           k < at_depth.size() && spans.start[at_depth[k]] < end; ++k) {
        selected.push_back(at_depth[k]);
      }
      merge_run(selected, first);
    }
  };
  // The launch calls of the window's GPU activities go to their host tracks first.
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    if (trace.track(track).info().kind != TrackKind::kGpuStream) continue;
    overlapping(track);
    std::vector<std::uint32_t>& gpu = selected_[track];
    const auto is_work = [&](std::uint32_t i) { return gpu_work_of(track, i) != GpuWork::kNone; };
    // The activity before the window, which the first one in it may have waited for.
    for (std::uint32_t i = gpu.empty() ? 0 : gpu.front(); i-- > 0;) {
      if (!is_work(i)) continue;
      gpu.insert(gpu.begin(), i);
      break;
    }
    for (const std::uint32_t i : gpu) {
      if (!is_work(i)) continue;
      if (const auto launch = context_->launch_of({trace::EventKind::kSpan, track, i}))
        selected_[launch->track].push_back(launch->index);
    }
  }
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    if (trace.track(track).info().kind != TrackKind::kHostThread) continue;
    merge_run(selected_[track], 0);
    overlapping(track);
  }
  track_first_.assign(trace.tracks().size() + 1, 0);
  times_.clear();
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    std::vector<std::uint32_t>& selected = selected_[track];
    merge_run(selected, 0);
    selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    track_first_[track] = static_cast<std::uint32_t>(events_.size());
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (const std::uint32_t index : selected) {
      events_.push_back({trace::EventKind::kSpan, track, index});
      times_.push_back(spans.start[index]);
      times_.push_back(spans.end(index));
    }
  }
  track_first_.back() = static_cast<std::uint32_t>(events_.size());
}

std::uint32_t DependencyGraph::local_span(std::uint32_t track, std::uint32_t index) const {
  const auto first = events_.begin() + track_first_[track];
  const auto last = events_.begin() + track_first_[track + 1];
  const auto found =
      std::lower_bound(first, last, index,
                       [](const trace::EventRef& ref, std::uint32_t i) { return ref.index < i; });
  if (found == last || found->index != index) return trace::kNoIndex;
  return static_cast<std::uint32_t>(found - events_.begin());
}

void DependencyGraph::add_edge(std::uint32_t from, std::uint32_t to, EdgeKind kind,
                               std::uint32_t owner, bool in_input_wait) {
  edges_.push_back({from, to, owner, kind, in_input_wait});
}

void DependencyGraph::add_host_order(std::uint32_t track) {
  // The thread's span starts and ends in time order: between two consecutive points the thread
  // ran the innermost span open there, so a parent owns its time between children.
  // Graph span s of this track is track span events_[s].index; `open` holds graph spans.
  std::vector<std::uint32_t>& open = open_spans_;
  open.clear();
  std::size_t open_input_waits = 0;
  std::uint32_t previous = trace::kNoIndex;
  const auto reach = [&](std::uint32_t node) {
    if (previous != trace::kNoIndex) {
      add_edge(previous, node, EdgeKind::kHostOrder, open.empty() ? trace::kNoIndex : open.back(),
               open_input_waits > 0);
    }
    previous = node;
  };
  const auto close = [&] {
    reach(end_node(open.back()));
    open_input_waits -= is_input_wait(open.back()) ? 1 : 0;
    open.pop_back();
  };
  for (std::uint32_t span = track_first_[track]; span < track_first_[track + 1]; ++span) {
    while (!open.empty() && time(end_node(open.back())) <= time(start_node(span)))
      close();
    reach(start_node(span));
    open.push_back(span);
    open_input_waits += is_input_wait(span) ? 1 : 0;
  }
  while (!open.empty())
    close();
}

void DependencyGraph::add_stream(std::uint32_t track) {
  const trace::Trace& trace = *trace_;
  const trace::SpanColumns& spans = trace.track(track).spans();
  if (stream_count_ == streams_.size()) streams_.emplace_back();
  StreamWork& stream = streams_[stream_count_];
  stream.track = track;
  stream.spans.clear();
  stream.graph_spans.clear();
  stream.launch_start.clear();
  launch_calls_.clear();
  for (std::uint32_t span = track_first_[track]; span < track_first_[track + 1]; ++span) {
    const std::uint32_t i = events_[span].index;
    if (gpu_work_of(track, i) == GpuWork::kNone) continue;
    add_edge(start_node(span), end_node(span), EdgeKind::kGpuActivity, span);
    TimeNs launch_start = kNoLaunchTime;
    std::uint32_t call = trace::kNoIndex;
    if (const auto launch = context_->launch_of({trace::EventKind::kSpan, track, i})) {
      launch_start = trace.track(launch->track).spans().start[launch->index];
      call = local_span(launch->track, launch->index);
      if (launch_start <= spans.start[i] && call != trace::kNoIndex)
        add_edge(start_node(call), start_node(span), EdgeKind::kLaunch, call);
    }
    launch_calls_.push_back(call);
    // Overlapping activities on one row ran concurrently: no order between them.
    if (!stream.spans.empty() &&
        time(end_node(stream.graph_spans.back())) <= time(start_node(span))) {
      add_edge(end_node(stream.graph_spans.back()), start_node(span), EdgeKind::kStreamOrder, span);
    }
    stream.spans.push_back(i);
    stream.graph_spans.push_back(span);
    stream.launch_start.push_back(launch_start);
  }
  add_queue_slots(stream);
  if (!stream.spans.empty()) ++stream_count_;
}

void DependencyGraph::add_queue_slots(const StreamWork& stream) {
  // A stream runs its work in launch order, so a launch call that began before the activity
  // kFullLaunchQueue launches earlier started found the queue full: CUDA blocked it until that
  // activity started and freed a slot, and the call's end waited for that start.
  const auto slots = static_cast<std::size_t>(kFullLaunchQueue);
  for (std::size_t at = slots; at < stream.graph_spans.size(); ++at) {
    const std::uint32_t call = launch_calls_[at];
    if (call == trace::kNoIndex) continue;
    const std::uint32_t freed = stream.graph_spans[at - slots];
    const TimeNs freed_at = time(start_node(freed));
    if (freed_at <= time(start_node(call)) || freed_at > time(end_node(call))) continue;
    add_edge(start_node(freed), end_node(call), EdgeKind::kQueueSlot, call);
    waits_[end_node(call)] = 1;
  }
}

std::uint32_t DependencyGraph::last_started_by(const StreamWork& stream, TimeNs time) const {
  const trace::SpanColumns& spans = trace_->track(stream.track).spans();
  const auto after = std::partition_point(stream.spans.begin(), stream.spans.end(),
                                          [&](std::uint32_t i) { return spans.start[i] <= time; });
  return after == stream.spans.begin() ? trace::kNoIndex : *(after - 1);
}

std::uint32_t DependencyGraph::last_launched_by(const StreamWork& stream, TimeNs time) const {
  const auto after = std::partition_point(stream.launch_start.begin(), stream.launch_start.end(),
                                          [&](TimeNs start) { return start <= time; });
  if (after == stream.launch_start.begin() || *(after - 1) == kNoLaunchTime) return trace::kNoIndex;
  return stream.spans[static_cast<std::size_t>(after - stream.launch_start.begin()) - 1];
}

const DependencyGraph::StreamWork* DependencyGraph::stream_of(std::uint32_t process,
                                                              std::int64_t stream) const {
  for (const StreamWork& work : streams()) {
    const trace::TrackInfo& info = trace_->track(work.track).info();
    if (info.process == process && info.stream == stream) return &work;
  }
  return nullptr;
}

void DependencyGraph::add_synchronizations() {
  const trace::Trace& trace = *trace_;
  // Kineto's GPU-side records name the call they belong to and, for event waits, the
  // cudaEventRecord call whose event they wait on, by correlation id.
  struct Record {
    SyncRecord kind;
    std::uint32_t track;
    std::uint32_t index;
    std::uint32_t call_correlation;
    std::uint32_t record_correlation;
  };
  std::vector<Record> records;
  std::unordered_map<std::uint32_t, std::uint32_t> call_by_correlation;
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    if (trace.track(track).info().kind != TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t span = track_first_[track]; span < track_first_[track + 1]; ++span) {
      const std::uint32_t i = events_[span].index;
      if (spans.category[i] != Category::kSynchronization) continue;
      const SyncRecord kind = sync_record(trace.string(spans.name[i]));
      const std::uint32_t correlation = correlation_of(trace, track, i);
      if (kind == SyncRecord::kNone || correlation == 0) continue;
      std::uint32_t record_correlation = 0;
      if (kind == SyncRecord::kEvent || kind == SyncRecord::kStreamWaitEvent) {
        const auto id = integer_arg(trace, track, i, "wait_on_cuda_event_record_corr_id");
        if (!id || *id <= 0) continue;
        record_correlation = static_cast<std::uint32_t>(*id);
        call_by_correlation.emplace(record_correlation, trace::kNoIndex);
      }
      call_by_correlation.emplace(correlation, trace::kNoIndex);
      records.push_back({kind, track, i, correlation, record_correlation});
    }
  }
  // One pass over the host calls: the ones the records name, and the synchronizing calls that
  // no record covers, which wait for whatever GPU work ends last while they block.
  blocking_calls_.clear();
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    if (trace.track(track).info().kind != TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = trace.track(track).spans();
    for (std::uint32_t span = track_first_[track]; span < track_first_[track + 1]; ++span) {
      const std::uint32_t i = events_[span].index;
      if (!is_runtime_call(spans.category[i])) continue;
      const bool blocks =
          blocking_call_.get(trace, spans.category[i], spans.name[i],
                             [](trace::Category category, std::string_view name) {
                               return is_sync_call(category, name) || is_blocking_copy_call(name);
                             });
      if (blocks) blocking_calls_.push_back(span);
      if (call_by_correlation.empty()) continue;
      const auto found = call_by_correlation.find(correlation_of(trace, track, i));
      if (found != call_by_correlation.end()) found->second = span;
    }
  }
  const auto wait_for = [&](std::uint32_t track, std::uint32_t index, std::uint32_t call) {
    const std::uint32_t awaited = local_span(track, index);
    if (awaited == trace::kNoIndex) return;
    const std::uint32_t from = end_node(awaited);
    if (time(from) > time(end_node(call))) return;
    add_edge(from, end_node(call), EdgeKind::kSyncReturn, call);
    waits_[end_node(call)] = 1;
  };
  for (const Record& record : records) {
    const std::uint32_t call = call_by_correlation[record.call_correlation];
    if (call == trace::kNoIndex) continue;
    const TimeNs record_end = trace.track(record.track).spans().end(record.index);
    const std::uint32_t process = trace.track(record.track).info().process;
    if (record.kind == SyncRecord::kStream || record.kind == SyncRecord::kContext) {
      waits_[end_node(call)] = 1;  // covered by its record, even when the stream was already idle
      for (const StreamWork& stream : streams()) {
        const bool waited = record.kind == SyncRecord::kContext
                                ? trace.track(stream.track).info().process == process
                                : stream.track == record.track;
        if (!waited) continue;
        const std::uint32_t last = last_started_by(stream, record_end);
        if (last != trace::kNoIndex) wait_for(stream.track, last, call);
      }
      continue;
    }
    const std::uint32_t event_record = call_by_correlation[record.record_correlation];
    const auto waited_stream = integer_arg(trace, record.track, record.index, "wait_on_stream");
    if (event_record == trace::kNoIndex || !waited_stream) continue;
    const StreamWork* waited = stream_of(process, *waited_stream);
    if (waited == nullptr) continue;
    const std::uint32_t source = last_launched_by(*waited, time(start_node(event_record)));
    if (source == trace::kNoIndex) continue;
    if (record.kind == SyncRecord::kEvent) {
      waits_[end_node(call)] = 1;
      wait_for(waited->track, source, call);
      continue;
    }
    // cudaStreamWaitEvent: the first activity launched on this stream after the wait call.
    const std::span<const StreamWork> active = streams();
    const auto stream = std::find_if(active.begin(), active.end(), [&](const StreamWork& work) {
      return work.track == record.track;
    });
    if (stream == active.end()) continue;
    const TimeNs call_start = time(start_node(call));
    const auto next = std::partition_point(stream->launch_start.begin(), stream->launch_start.end(),
                                           [&](TimeNs start) { return start <= call_start; });
    if (next == stream->launch_start.end()) continue;
    const std::uint32_t target =
        stream->graph_spans[static_cast<std::size_t>(next - stream->launch_start.begin())];
    const std::uint32_t awaited = local_span(waited->track, source);
    if (awaited == trace::kNoIndex) continue;
    const std::uint32_t from = end_node(awaited);
    if (time(from) <= time(start_node(target))) {
      add_edge(from, start_node(target), EdgeKind::kEventWait, target);
    }
  }
  for (const std::uint32_t call : blocking_calls_) {
    if (waits_[end_node(call)] != 0) continue;
    const TimeNs call_start = time(start_node(call));
    const TimeNs call_end = time(end_node(call));
    const StreamWork* best_stream = nullptr;
    std::uint32_t best = trace::kNoIndex;
    TimeNs best_end = 0;
    for (const StreamWork& stream : streams()) {
      // Activities of one stream do not overlap, so their ends are in start order too.
      const trace::SpanColumns& spans = trace.track(stream.track).spans();
      const auto after =
          std::partition_point(stream.spans.begin(), stream.spans.end(),
                               [&](std::uint32_t i) { return spans.end(i) <= call_end; });
      if (after == stream.spans.begin()) continue;
      const std::uint32_t last = *(after - 1);
      if (spans.end(last) >= call_start &&
          (best == trace::kNoIndex || spans.end(last) > best_end)) {
        best_stream = &stream;
        best = last;
        best_end = spans.end(last);
      }
    }
    if (best_stream != nullptr) wait_for(best_stream->track, best, call);
  }
}

bool DependencyGraph::is_input_wait(std::uint32_t span) {
  const trace::EventRef event = events_[span];
  const trace::SpanColumns& spans = trace_->track(event.track).spans();
  return input_wait_.get(*trace_, spans.category[event.index], spans.name[event.index],
                         [](trace::Category category, std::string_view name) {
                           return host_activity(category, name) == HostActivity::kDataWait;
                         });
}

void DependencyGraph::add_handoffs(TimeNs begin, TimeNs end) {
  // Waits that start before the window may end in it; none is longer than the trace.
  const auto first = std::partition_point(handoffs_.begin(), handoffs_.end(),
                                          [&](const Handoff& h) { return h.wait_start < begin; });
  auto from = first;
  while (from != handoffs_.begin()) {
    const Handoff& earlier = *(from - 1);
    if (trace_->track(earlier.wait.track).spans().end(earlier.wait.index) <= begin) break;
    --from;
  }
  for (auto at = from; at != handoffs_.end() && at->wait_start < end; ++at) {
    const std::uint32_t work = local_span(at->work.track, at->work.index);
    const std::uint32_t wait = local_span(at->wait.track, at->wait.index);
    if (work == trace::kNoIndex || wait == trace::kNoIndex || work == wait) continue;
    // The queued work starts, or the wait ends, when the other thread lets it. One that happened
    // first was not held back by it (a clock step, a flow drawn wrongly).
    const std::uint32_t target = at->enqueue ? start_node(wait) : end_node(wait);
    if (time(end_node(work)) > time(target)) continue;
    if (at->enqueue) {
      add_edge(end_node(work), target, EdgeKind::kEnqueue, wait);
    } else {
      add_edge(end_node(work), target, EdgeKind::kHandoff, wait, is_input_wait(wait));
    }
    waits_[target] = 1;
  }
}

void DependencyGraph::index_edges() {
  const std::size_t nodes = node_count();
  out_begin_.assign(nodes + 1, 0);
  waiting_.assign(nodes, 0);
  for (const DependencyEdge& edge : edges_) {
    ++out_begin_[edge.from + 1];
    ++waiting_[edge.to];
  }
  for (std::size_t node = 0; node < nodes; ++node)
    out_begin_[node + 1] += out_begin_[node];
  out_edges_.resize(edges_.size());
  next_out_.assign(out_begin_.begin(), out_begin_.end() - 1);
  for (std::uint32_t e = 0; e < edges_.size(); ++e)
    out_edges_[next_out_[edges_[e].from]++] = e;
  // Kahn's algorithm: edges follow structure (thread order, stream order, causality), not
  // timestamps, so ties and zero-length spans need no special ordering.
  order_.clear();
  order_.reserve(nodes);
  for (std::uint32_t node = 0; node < nodes; ++node) {
    if (waiting_[node] == 0) order_.push_back(node);
  }
  for (std::size_t at = 0; at < order_.size(); ++at) {
    for (const std::uint32_t e : out_edges(order_[at])) {
      if (--waiting_[edges_[e].to] == 0) order_.push_back(edges_[e].to);
    }
  }
}

}  // namespace tscope::analyzer
