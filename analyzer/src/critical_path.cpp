#include "tscope/analyzer/critical_path.h"

#include <algorithm>
#include <limits>

#include "dependency_graph.h"
#include "event_classes.h"
#include "trace_names.h"

namespace tscope::analyzer {
namespace {

PathPart host_part(trace::Category category, std::string_view name) {
  // A loader's work is on the path only where the step waited for the batch it loaded.
  if (category == trace::Category::kDataLoaderLoad) return PathPart::kInputWait;
  switch (host_activity(category, name)) {
    case HostActivity::kDataWait:
      return PathPart::kInputWait;
    case HostActivity::kSync:
      return PathPart::kSync;
    default:
      break;
  }
  if (is_runtime_call(category)) {
    if (launch_api(name) != LaunchApi::kNone) return PathPart::kLaunch;
    return is_blocking_copy_call(name) ? PathPart::kSync : PathPart::kRuntime;
  }
  return PathPart::kHostCompute;
}

// The ops, calls and activities off the path so far, by name, over the steps.
struct OffPathTally {
  std::vector<std::uint32_t> slot_by_name;
  std::vector<std::uint8_t> seen_on_path;  // by name: some event of it was on a path
  std::vector<SlackEntry> entries;
};

// One step's graph, the dependency each node waited for last, and the latest time of each node.
// One finder serves every step in turn, each in the memory of the last.
class StepPathFinder {
 public:
  explicit StepPathFinder(const AnalysisContext& context)
      : context_(context), trace_(context.trace()), graph_(context) {}

  // The graph, binding dependencies and late times of `step`, in place of the previous step's.
  void find(const Step& step) {
    step_ = &step;
    graph_.build(step.start, step.end);
    choose_binding_edges();
    compute_late_times();
  }

  const DependencyGraph& graph() const { return graph_; }
  // Appends the step's segments in time order and returns what each part took; marks the
  // graph's spans on the path in `on_path`.
  PathParts walk(std::vector<PathSegment>& segments, std::vector<std::uint8_t>& on_path);
  void add_off_path(OffPathTally& tally, const std::vector<std::uint8_t>& on_path);

 private:
  TimeNs time(std::uint32_t node) const { return graph_.time(node); }

  TimeNs arrival(const DependencyEdge& edge) const { return graph_.arrival(edge); }
  bool is_blocked_wait(const DependencyEdge& edge) const { return graph_.is_blocked_wait(edge); }

  // The dependency each node waited for last, in the memory of the late times that follow.
  void choose_binding_edges() { graph_.find_binding_edges(binding_, late_); }

  // Latest time each node could happen without moving the end of the step: a backward pass in
  // reverse topological order. The binding edge of a node keeps its measured length (the launch
  // or sync latency on the path is taken as fixed); other edges keep only their own work (a
  // launch its call), so a dependency that was not waited for may shrink to nothing.
  void compute_late_times() {
    const std::vector<DependencyEdge>& edges = graph_.edges();
    late_.assign(graph_.node_count(), 0);
    const TimeNs step_end = step_->end;
    const std::vector<std::uint32_t>& order = graph_.topological_order();
    for (auto at = order.rbegin(); at != order.rend(); ++at) {
      const std::uint32_t node = *at;
      const TimeNs now = time(node);
      if (now > step_end) {
        late_[node] = now;
        continue;
      }
      TimeNs late = step_end;
      for (const std::uint32_t e : graph_.out_edges(node)) {
        const std::uint32_t next = edges[e].to;
        if (time(next) > step_end) continue;
        const TimeNs length = binding_[next] == e ? time(next) - now : arrival(edges[e]) - now;
        late = std::min(late, late_[next] - length);
      }
      late_[node] = std::max(late, now);
    }
  }

  PathPart host_part_of(const trace::EventRef& event) {
    const trace::SpanColumns& spans = trace_.track(event.track).spans();
    return host_parts_.get(trace_, spans.category[event.index], spans.name[event.index],
                           &host_part);
  }

  PathPart part_of(const DependencyEdge& edge) {
    switch (edge.kind) {
      case EdgeKind::kHostOrder: {
        if (edge.owner == trace::kNoIndex) return PathPart::kIdle;
        if (edge.in_input_wait) return PathPart::kInputWait;
        if (is_blocked_wait(edge)) return PathPart::kSync;
        return host_part_of(graph_.event(edge.owner));
      }
      case EdgeKind::kGpuActivity: {
        const trace::EventRef owner = graph_.event(edge.owner);
        const GpuWork work = graph_.gpu_work_of(owner.track, owner.index);
        return work == GpuWork::kCopy || work == GpuWork::kMemset ? PathPart::kCopy
                                                                  : PathPart::kKernel;
      }
      case EdgeKind::kLaunch:
        return PathPart::kLaunch;
      case EdgeKind::kSyncReturn:
        return PathPart::kSync;
      case EdgeKind::kHandoff:
        return edge.in_input_wait ? PathPart::kInputWait : PathPart::kSync;
      case EdgeKind::kEnqueue:  // like a launch: the delay from queueing work to its start
        return PathPart::kLaunch;
      case EdgeKind::kQueueSlot:  // a launch call blocked until the GPU took work off its queue
        return PathPart::kSync;
      case EdgeKind::kStreamOrder:
      case EdgeKind::kEventWait:
        return PathPart::kGpuWait;
    }
    return PathPart::kIdle;
  }

  // The node a step's path starts from: the end of its step range, else (the whole trace as
  // one step) the last end of the main thread's spans and the GPU's work. Other threads may hold
  // a span over the whole capture (Kineto's "PyTorch Profiler" row) that waits for nothing.
  std::uint32_t path_end(const Step& step) const {
    if (step.span && trace_.track(step.span->track).info().kind == trace::TrackKind::kHostThread) {
      const std::uint32_t span = graph_.local_span(step.span->track, step.span->index);
      return span == trace::kNoIndex ? kNoEdge : DependencyGraph::end_node(span);
    }
    std::uint32_t best = kNoEdge;
    for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
      const std::uint32_t node = DependencyGraph::end_node(span);
      if (binding_[node] == kNoEdge || time(node) > step.end) continue;
      const std::uint32_t track = graph_.event(span).track;
      if (track != context_.main_thread() &&
          trace_.track(track).info().kind != trace::TrackKind::kGpuStream) {
        continue;
      }
      if (best == kNoEdge || time(node) > time(best)) best = node;
    }
    return best;
  }

  PathParts walk_back(std::vector<PathSegment>& segments, std::vector<std::uint8_t>& on_path) {
    const Step& step = *step_;
    PathParts parts{};
    std::uint32_t node = path_end(step);
    TimeNs now = step.end;
    const auto idle = [&](TimeNs from, TimeNs to) {
      parts[static_cast<std::size_t>(PathPart::kIdle)] += static_cast<double>(to - from);
      segments.push_back({from, to, PathPart::kIdle, false, {}});
    };
    // A whole-trace step may end after the last span (an instant, a counter sample).
    if (node != kNoEdge && time(node) < now) {
      idle(std::max(time(node), step.start), now);
      now = std::max(time(node), step.start);
    }
    const std::vector<DependencyEdge>& edges = graph_.edges();
    while (node != kNoEdge && now > step.start) {
      now = std::min(now, time(node));
      const std::uint32_t e = binding_[node];
      if (e == kNoEdge) break;
      const DependencyEdge& edge = edges[e];
      const TimeNs from = std::max(time(edge.from), step.start);
      if (from < now) {
        const PathPart part = part_of(edge);
        PathSegment segment{from, now, part, false, {}};
        if (edge.owner != trace::kNoIndex && part != PathPart::kGpuWait) {
          segment.has_event = true;
          segment.event = graph_.event(edge.owner);
          on_path[edge.owner] = 1;
        }
        parts[static_cast<std::size_t>(part)] += static_cast<double>(now - from);
        segments.push_back(segment);
        now = from;
      }
      node = edge.from;
    }
    // Nothing recorded before the path's first node: the rest of the step is unexplained.
    if (now > step.start) idle(step.start, now);
    return parts;
  }

  const AnalysisContext& context_;
  const trace::Trace& trace_;
  const Step* step_ = nullptr;
  DependencyGraph graph_;
  std::vector<std::uint32_t> binding_;
  std::vector<TimeNs> late_;
  ClassByName<PathPart> host_parts_;
};

PathParts StepPathFinder::walk(std::vector<PathSegment>& segments,
                               std::vector<std::uint8_t>& on_path) {
  const std::size_t first = segments.size();
  const PathParts parts = walk_back(segments, on_path);
  std::reverse(segments.begin() + static_cast<std::ptrdiff_t>(first), segments.end());
  return parts;
}

// The path's time by the name of the op or kernel that filled it, over the steps.
struct OnPathTally {
  std::vector<std::uint32_t> slot_by_name;
  std::vector<PathEntry> entries;

  void add(const trace::Trace& trace, const std::vector<PathSegment>& segments, double step_count) {
    for (const PathSegment& segment : segments) {
      if (!segment.has_event || segment.part == PathPart::kIdle) continue;
      const trace::SpanColumns& spans = trace.track(segment.event.track).spans();
      const trace::StringId name = spans.name[segment.event.index];
      if (slot_by_name[name] == kNoEdge) {
        slot_by_name[name] = static_cast<std::uint32_t>(entries.size());
        entries.push_back({std::string(trace.string(name)), segment.part, 0, 0});
      }
      PathEntry& entry = entries[slot_by_name[name]];
      entry.path_ns += static_cast<double>(segment.end - segment.start) / step_count;
      ++entry.segments;
    }
  }

  // Most path time first.
  std::vector<PathEntry> top(std::size_t count) {
    std::sort(entries.begin(), entries.end(),
              [](const PathEntry& a, const PathEntry& b) { return a.path_ns > b.path_ns; });
    if (entries.size() > count) entries.resize(count);
    return std::move(entries);
  }
};

// Ops, API calls and GPU activities that start in the step and are not on its path, by name, with
// the least slack among their events.
void StepPathFinder::add_off_path(OffPathTally& tally, const std::vector<std::uint8_t>& on_path) {
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
    const std::uint32_t end = DependencyGraph::end_node(span);
    if (binding_[end] == kNoEdge) continue;
    const trace::EventRef event = graph_.event(span);
    const trace::SpanColumns& spans = trace_.track(event.track).spans();
    const trace::Category category = spans.category[event.index];
    const bool gpu = trace_.track(event.track).info().kind == trace::TrackKind::kGpuStream;
    if (!gpu && category != trace::Category::kCpuOp && !is_runtime_call(category)) continue;
    if (on_path[span] != 0) {
      tally.seen_on_path[spans.name[event.index]] = 1;
      continue;
    }
    // Spans across a step boundary are in both steps' graphs: each counts in the one it starts.
    if (spans.start[event.index] < step_->start || spans.start[event.index] >= step_->end) continue;
    std::uint32_t& slot = tally.slot_by_name[spans.name[event.index]];
    if (slot == kNoEdge) {
      slot = static_cast<std::uint32_t>(tally.entries.size());
      const PathPart part =
          gpu ? part_of({0, 0, span, EdgeKind::kGpuActivity}) : host_part_of(event);
      tally.entries.push_back({std::string(trace_.string(spans.name[event.index])), part, 0, 0,
                               std::numeric_limits<double>::infinity(), event});
    }
    SlackEntry& entry = tally.entries[slot];
    entry.total_ns += static_cast<double>(spans.end(event.index) - spans.start[event.index]);
    ++entry.count;
    const auto slack = static_cast<double>(late_[end] - time(end));
    if (slack < entry.min_slack_ns) {
      entry.min_slack_ns = slack;
      entry.least_slack = event;
    }
  }
}

std::vector<SlackEntry> slack_entries(const trace::Trace& trace, OffPathTally& tally,
                                      double step_count, std::size_t top_count) {
  std::vector<SlackEntry> entries = std::move(tally.entries);
  // A name with some events on the path is not "off the path".
  std::erase_if(entries, [&](const SlackEntry& entry) {
    const trace::SpanColumns& spans = trace.track(entry.least_slack.track).spans();
    return tally.seen_on_path[spans.name[entry.least_slack.index]] != 0;
  });
  for (SlackEntry& entry : entries)
    entry.total_ns /= step_count;
  std::sort(entries.begin(), entries.end(),
            [](const SlackEntry& a, const SlackEntry& b) { return a.total_ns > b.total_ns; });
  if (entries.size() > top_count) entries.resize(top_count);
  return entries;
}

}  // namespace

std::string_view to_string(PathPart part) {
  static constexpr std::array<std::string_view, kPathPartCount> kNames{
      "host compute", "input wait", "launch",   "other API", "sync",
      "GPU kernels",  "GPU copies", "GPU wait", "idle"};
  return kNames[static_cast<std::size_t>(part)];
}

CriticalPath compute_critical_path(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const StepSet& steps = context.steps();
  const double step_count = context.step_count();
  CriticalPath path;
  path.step_ns = steps.mean_ns();
  OffPathTally tally{std::vector<std::uint32_t>(trace.strings().size(), kNoEdge),
                     std::vector<std::uint8_t>(trace.strings().size(), 0),
                     {}};
  OnPathTally on_path_tally{std::vector<std::uint32_t>(trace.strings().size(), kNoEdge), {}};
  std::vector<PathSegment> segments;
  // One graph per step, so that memory follows the largest step rather than the trace.
  StepPathFinder finder(context);
  std::vector<std::uint8_t> on_path;
  for (const Step& step : steps.steps) {
    finder.find(step);
    on_path.assign(finder.graph().span_count(), 0);
    segments.clear();
    const PathParts parts = finder.walk(segments, on_path);
    finder.add_off_path(tally, on_path);
    on_path_tally.add(trace, segments, step_count);
    if (context.options().keep_path_segments)
      path.segments.insert(path.segments.end(), segments.begin(), segments.end());
    path.steps.push_back({step.name, parts});
    for (std::size_t p = 0; p < kPathPartCount; ++p)
      path.parts[p] += parts[p] / step_count;
    path.graph_nodes += finder.graph().node_count();
    path.graph_edges += finder.graph().edges().size();
  }
  path.on_path = on_path_tally.top(context.options().top_count);
  path.off_path = slack_entries(trace, tally, step_count, context.options().top_count);
  return path;
}

}  // namespace tscope::analyzer
