#include "tscope/analyzer/critical_path.h"

#include <algorithm>
#include <limits>

#include "dependency_graph.h"
#include "event_classes.h"

namespace tscope::analyzer {
namespace {

using trace::TimeNs;

constexpr std::uint32_t kNoEdge = std::numeric_limits<std::uint32_t>::max();

PathPart host_part(trace::Category category, std::string_view name) {
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

class PathFinder {
 public:
  explicit PathFinder(const AnalysisContext& context)
      : context_(context), trace_(context.trace()), graph_(context) {
    choose_binding_edges();
    compute_late_times();
  }

  CriticalPath summarize() const;

 private:
  TimeNs time(std::uint32_t node) const { return graph_.time(node); }

  // A host-order edge into the end of a call that waits on the GPU: the host was blocked, so
  // the edge carries no work of its own.
  bool is_blocked_wait(const DependencyEdge& edge) const {
    return edge.kind == EdgeKind::kHostOrder && edge.owner != trace::kNoIndex &&
           edge.to == DependencyGraph::end_node(edge.owner) && graph_.waits_on_gpu(edge.to);
  }
  // When an edge's source lets its target go: work edges (host work, a GPU activity) at their
  // end; a launch when its call returns (or its activity starts, if earlier), since the call
  // queues the work; other dependencies at their source.
  TimeNs arrival(const DependencyEdge& edge) const {
    switch (edge.kind) {
      case EdgeKind::kHostOrder:
        return is_blocked_wait(edge) ? time(edge.from) : time(edge.to);
      case EdgeKind::kGpuActivity:
        return time(edge.to);
      case EdgeKind::kLaunch:
        return std::min(time(DependencyGraph::end_node(edge.owner)), time(edge.to));
      default:
        return time(edge.from);
    }
  }

  // The dependency each node waited for last, in one pass over the edges. The earlier edge wins
  // a tie (host order and activities come first).
  void choose_binding_edges() {
    binding_.assign(graph_.node_count(), kNoEdge);
    const std::vector<DependencyEdge>& edges = graph_.edges();
    std::vector<TimeNs> latest(graph_.node_count(), std::numeric_limits<TimeNs>::min());
    for (std::uint32_t e = 0; e < edges.size(); ++e) {
      const TimeNs arrival = this->arrival(edges[e]);
      if (arrival > latest[edges[e].to]) {
        latest[edges[e].to] = arrival;
        binding_[edges[e].to] = e;
      }
    }
    late_ = std::move(latest);  // its memory, for the next pass
  }

  // Latest time each node could happen without moving the end of its step: a backward pass in
  // reverse topological order. The binding edge of a node keeps its measured length (the launch
  // or sync latency on the path is taken as fixed); other edges keep only their own work (a
  // launch its call), so a dependency that was not waited for may shrink to nothing.
  void compute_late_times() {
    const std::vector<DependencyEdge>& edges = graph_.edges();
    const StepSet& steps = context_.steps();
    late_.assign(graph_.node_count(), 0);
    const std::vector<std::uint32_t>& order = graph_.topological_order();
    for (auto at = order.rbegin(); at != order.rend(); ++at) {
      const std::uint32_t node = *at;
      const TimeNs now = time(node);
      const std::size_t step = steps.step_at(now);
      if (step == steps.steps.size()) {
        late_[node] = now;
        continue;
      }
      const TimeNs step_end = steps.steps[step].end;
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

  PathPart part_of(const DependencyEdge& edge) const {
    switch (edge.kind) {
      case EdgeKind::kHostOrder: {
        if (edge.owner == trace::kNoIndex) return PathPart::kIdle;
        if (is_blocked_wait(edge)) return PathPart::kSync;
        if (edge.in_input_wait) return PathPart::kInputWait;
        const trace::EventRef owner = graph_.event(edge.owner);
        const trace::SpanColumns& spans = trace_.track(owner.track).spans();
        return host_part(spans.category[owner.index], trace_.string(spans.name[owner.index]));
      }
      case EdgeKind::kGpuActivity: {
        const trace::EventRef owner = graph_.event(edge.owner);
        const trace::SpanColumns& spans = trace_.track(owner.track).spans();
        const GpuWork work =
            gpu_work(spans.category[owner.index], trace_.string(spans.name[owner.index]));
        return work == GpuWork::kCopy || work == GpuWork::kMemset ? PathPart::kCopy
                                                                  : PathPart::kKernel;
      }
      case EdgeKind::kLaunch:
        return PathPart::kLaunch;
      case EdgeKind::kSyncReturn:
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
    if (step.span && trace_.track(step.span->track).info().kind == trace::TrackKind::kHostThread)
      return DependencyGraph::end_node(graph_.global_span(step.span->track, step.span->index));
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

  // Walks back from the step's end along binding edges, appending the step's segments (latest
  // first) and returning what each part took.
  PathParts walk(const Step& step, std::vector<PathSegment>& segments,
                 std::vector<std::uint8_t>& on_path) const {
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

  void add_off_path(CriticalPath& path, const std::vector<std::uint8_t>& on_path) const;

  const AnalysisContext& context_;
  const trace::Trace& trace_;
  DependencyGraph graph_;
  std::vector<std::uint32_t> binding_;
  std::vector<TimeNs> late_;
};

CriticalPath PathFinder::summarize() const {
  CriticalPath path;
  path.graph_nodes = graph_.node_count();
  path.graph_edges = graph_.edges().size();
  const StepSet& steps = context_.steps();
  const double step_count = context_.step_count();
  path.step_ns = steps.mean_ns();
  std::vector<std::uint8_t> on_path(graph_.span_count(), 0);
  for (const Step& step : steps.steps) {
    const std::size_t first = path.segments.size();
    const PathParts parts = walk(step, path.segments, on_path);
    std::reverse(path.segments.begin() + static_cast<std::ptrdiff_t>(first), path.segments.end());
    path.steps.push_back({step.name, parts});
    for (std::size_t p = 0; p < kPathPartCount; ++p)
      path.parts[p] += parts[p] / step_count;
  }
  // The path's time by the name of the op or kernel that filled it.
  std::vector<std::uint32_t> slot_by_name(trace_.strings().size(), kNoEdge);
  for (const PathSegment& segment : path.segments) {
    if (!segment.has_event || segment.part == PathPart::kIdle) continue;
    const trace::SpanColumns& spans = trace_.track(segment.event.track).spans();
    const trace::StringId name = spans.name[segment.event.index];
    if (slot_by_name[name] == kNoEdge) {
      slot_by_name[name] = static_cast<std::uint32_t>(path.on_path.size());
      path.on_path.push_back({std::string(trace_.string(name)), segment.part, 0, 0});
    }
    PathEntry& entry = path.on_path[slot_by_name[name]];
    entry.path_ns += static_cast<double>(segment.end - segment.start) / step_count;
    ++entry.segments;
  }
  std::sort(path.on_path.begin(), path.on_path.end(),
            [](const PathEntry& a, const PathEntry& b) { return a.path_ns > b.path_ns; });
  if (path.on_path.size() > context_.options().top_count)
    path.on_path.resize(context_.options().top_count);
  add_off_path(path, on_path);
  return path;
}

// Ops, API calls and GPU activities in the steps that are never on the path, by name, with the
// least slack among their events.
void PathFinder::add_off_path(CriticalPath& path, const std::vector<std::uint8_t>& on_path) const {
  const StepSet& steps = context_.steps();
  const double step_count = context_.step_count();
  std::vector<std::uint32_t> slot_by_name(trace_.strings().size(), kNoEdge);
  std::vector<std::uint8_t> seen_on_path(trace_.strings().size(), 0);
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
    const std::uint32_t end = DependencyGraph::end_node(span);
    if (binding_[end] == kNoEdge) continue;
    const trace::EventRef event = graph_.event(span);
    const trace::SpanColumns& spans = trace_.track(event.track).spans();
    const trace::Category category = spans.category[event.index];
    const std::string_view name = trace_.string(spans.name[event.index]);
    const bool gpu = trace_.track(event.track).info().kind == trace::TrackKind::kGpuStream;
    if (!gpu && category != trace::Category::kCpuOp && !is_runtime_call(category)) continue;
    if (on_path[span] != 0) {
      seen_on_path[spans.name[event.index]] = 1;
      continue;
    }
    if (steps.step_at(spans.start[event.index]) == steps.steps.size()) continue;
    std::uint32_t& slot = slot_by_name[spans.name[event.index]];
    if (slot == kNoEdge) {
      slot = static_cast<std::uint32_t>(path.off_path.size());
      const PathPart part =
          gpu ? part_of({0, 0, span, EdgeKind::kGpuActivity}) : host_part(category, name);
      path.off_path.push_back(
          {std::string(name), part, 0, 0, std::numeric_limits<double>::infinity(), event});
    }
    SlackEntry& entry = path.off_path[slot];
    entry.total_ns += static_cast<double>(spans.end[event.index] - spans.start[event.index]);
    ++entry.count;
    const auto slack = static_cast<double>(late_[end] - time(end));
    if (slack < entry.min_slack_ns) {
      entry.min_slack_ns = slack;
      entry.least_slack = event;
    }
  }
  // A name with some events on the path is not "off the path".
  std::erase_if(path.off_path, [&](const SlackEntry& entry) {
    const trace::SpanColumns& spans = trace_.track(entry.least_slack.track).spans();
    return seen_on_path[spans.name[entry.least_slack.index]] != 0;
  });
  for (SlackEntry& entry : path.off_path)
    entry.total_ns /= step_count;
  std::sort(path.off_path.begin(), path.off_path.end(),
            [](const SlackEntry& a, const SlackEntry& b) { return a.total_ns > b.total_ns; });
  if (path.off_path.size() > context_.options().top_count)
    path.off_path.resize(context_.options().top_count);
}

}  // namespace

std::string_view to_string(PathPart part) {
  static constexpr std::array<std::string_view, kPathPartCount> kNames{
      "host compute", "input wait", "launch",   "other API", "sync",
      "GPU kernels",  "GPU copies", "GPU wait", "idle"};
  return kNames[static_cast<std::size_t>(part)];
}

CriticalPath compute_critical_path(const AnalysisContext& context) {
  return PathFinder(context).summarize();
}

}  // namespace tscope::analyzer
