#include "step_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace tscope::analyzer {
namespace {

constexpr double kNotYet = -std::numeric_limits<double>::infinity();

}  // namespace

StepReplay::StepReplay(const AnalysisContext& context, ResolvedEdits& edits)
    : context_(&context), trace_(&context.trace()), edits_(&edits), graph_(context) {}

ReplayedStep StepReplay::replay(std::size_t index) {
  ReplayedStep result;
  if (!prepare(index, result)) return result;
  result.replayed_ns = length(false);
  // A step already shorter than its GPU work (the work spills into the next step) keeps its
  // measured length as the bound.
  result.predicted_ns =
      std::max(edits_->loader_workers() > 0 ? length_with_loader_workers() : length(true),
               std::min(result.measured_ns, gpu_floor_));
  result.replayed = true;
  return result;
}

void StepReplay::clear_floors() {
  floor_.assign(graph_.node_count(), kNotYet);
}

bool StepReplay::prepare(std::size_t index, ReplayedStep& result) {
  const Step& step = context_->steps().steps[index];
  result = {};
  result.measured_ns = static_cast<double>(step.end - step.start);
  measured_ns_ = result.measured_ns;
  if (step.span && trace_->track(step.span->track).info().kind != trace::TrackKind::kHostThread) {
    result.why_not = "its step range is not on a host thread";
    return false;
  }
  graph_.build(step.start, step.end);
  graph_.find_binding_edges(binding_, latest_);
  ordered_.assign(graph_.node_count(), 0);
  for (const std::uint32_t node : graph_.topological_order())
    ordered_[node] = 1;
  step_span_ = trace::kNoIndex;
  if (step.span) {
    step_span_ = graph_.local_span(step.span->track, step.span->index);
    if (step_span_ == trace::kNoIndex) {
      result.why_not = "its step range is not in its dependency graph";
      return false;
    }
    if (ordered_[DependencyGraph::start_node(step_span_)] == 0 ||
        ordered_[DependencyGraph::end_node(step_span_)] == 0) {
      result.why_not = "its timestamps order its dependencies in a cycle";
      return false;
    }
  }
  result.why_not = missing_dependencies(step);
  if (!result.why_not.empty()) return false;
  scale_spans();
  own_scale_.assign(graph_.span_count(), 1);
  clear_floors();
  gpu_floor_ = gpu_floor_ns(index);
  return true;
}

double StepReplay::step_length(const std::vector<double>& times, double measured_ns) {
  if (step_span_ != trace::kNoIndex) {
    return times[DependencyGraph::end_node(step_span_)] -
           times[DependencyGraph::start_node(step_span_)];
  }
  // The whole trace as one step ends when the main thread's and the GPU's work last ends, then
  // keeps the measured time after that (nothing recorded, or other threads).
  double measured_last = kNotYet;
  double replayed_last = kNotYet;
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
    const trace::EventRef event = graph_.event(span);
    const bool gpu = trace_->track(event.track).info().kind == trace::TrackKind::kGpuStream;
    const std::uint32_t end = DependencyGraph::end_node(span);
    if ((!gpu && event.track != context_->main_thread()) || ordered_[end] == 0) continue;
    if (gpu && graph_.gpu_work_of(event.track, event.index) == GpuWork::kNone) continue;
    measured_last = std::max(measured_last, static_cast<double>(graph_.time(end)));
    replayed_last = std::max(replayed_last, times[end]);
  }
  if (measured_last == kNotYet) return measured_ns;
  return measured_ns + replayed_last - measured_last;
}

void StepReplay::scale_spans() {
  const std::size_t count = graph_.span_count();
  factor_.assign(count, 1);
  cpu_share_factor_.assign(count, 1);
  removed_.assign(count, 0);
  in_graph_.assign(count, 0);
  depth_.assign(count, 0);
  fused_follower_.assign(count, 0);
  open_.clear();
  std::uint32_t track = trace::kNoIndex;
  for (std::uint32_t span = 0; span < count; ++span) {
    const trace::EventRef event = graph_.event(span);
    const trace::StringId name = trace_->track(event.track).spans().name[event.index];
    if (trace_->track(event.track).info().kind == trace::TrackKind::kGpuStream) {
      factor_[span] = edits_->gpu_factor(name);
      continue;
    }
    // A host span's children run inside it: an edit of the span scales them too.
    if (event.track != track) open_.clear();
    track = event.track;
    const trace::TimeNs begins = graph_.time(DependencyGraph::start_node(span));
    while (!open_.empty() && graph_.time(DependencyGraph::end_node(open_.back())) <= begins)
      open_.pop_back();
    const double parent = open_.empty() ? 1 : factor_[open_.back()];
    factor_[span] = parent * edits_->host_factor(name);
    removed_[span] = edits_->removes_sync(name) ? 1 : 0;
    const bool parent_in_graph = !open_.empty() && in_graph_[open_.back()] != 0;
    in_graph_[span] = parent_in_graph || edits_->graph_region(name) ? 1 : 0;
    depth_[span] = static_cast<std::uint32_t>(open_.size());
    open_.push_back(span);
  }
  if (edits_->chain_count() > 0) fuse_chains();
  // Loader work that an edit takes away (input-wait*F, op:load batch*F) gives back the cores it
  // held; workers=N loaders, busy while they set the pace, take them.
  const unsigned workers = edits_->loader_workers();
  if (edits_->input_wait_factor() == 1 && workers == 0 && !edits_->scales_host_spans()) return;
  contention_ = &context_->cpu_contention();
  share_cores(workers > 0 ? CpuContention::Loaders{.threads = static_cast<double>(workers)}
                          : CpuContention::Loaders{.share = loader_work_share()});
}

double StepReplay::loader_work_share() {
  double measured = 0;
  double edited = 0;
  for (const auto& [name, ns] : contention_->load_names()) {
    measured += ns;
    edited += ns * edits_->host_factor(name);
  }
  const double loads = measured > 0 ? edited / measured : 1;
  return edits_->input_wait_factor() * loads;
}

void StepReplay::share_cores(CpuContention::Loaders then) {
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span)
    cpu_share_factor_[span] = contention_->own_time_factor(graph_.event(span), then);
}

double StepReplay::length_with_loader_workers() {
  const auto workers = static_cast<double>(edits_->loader_workers());
  // First with the workers busy throughout, as they are while they set the pace (scale_spans).
  const double compute = length(true);
  const double solo = contention_->solo_load_ns();
  if (solo <= 0) return compute;
  // A batch's load with the workers and the training thread sharing the CPUs; the training
  // thread's engine threads are busy `duty` of the time.
  const auto load_ns = [&](double duty) {
    return solo / contention_->share(workers + contention_->engine_threads() * duty);
  };
  const double first_pace = load_ns(1) / workers;
  const double pace = load_ns(std::min(1.0, compute / std::max(compute, first_pace))) / workers;
  if (pace >= compute) return pace;
  // The step computes longer than the workers load: they are busy a share of it, and the
  // training thread's ops share the CPUs with that many.
  share_cores({.threads = std::min(workers, load_ns(1) / compute)});
  const double shared = length(true);
  share_cores({.threads = workers});
  return std::max(shared, pace);
}

void StepReplay::fuse_chains() {
  // Each track's spans are a contiguous run of the graph's, in time order.
  for (std::uint32_t first = 0; first < graph_.span_count();) {
    const std::uint32_t track = graph_.event(first).track;
    std::uint32_t last = first;
    while (last < graph_.span_count() && graph_.event(last).track == track)
      ++last;
    const bool gpu = trace_->track(track).info().kind == trace::TrackKind::kGpuStream;
    std::uint32_t depths = 1;
    for (std::uint32_t span = first; span < last && !gpu; ++span)
      depths = std::max(depths, depth_[span] + 1);
    // A chain runs along a stream's GPU activities, or a host thread's spans at one depth.
    for (std::uint32_t depth = 0; depth < depths; ++depth) {
      sequence_.clear();
      for (std::uint32_t span = first; span < last; ++span) {
        const trace::EventRef event = graph_.event(span);
        const bool member =
            gpu ? graph_.gpu_work_of(track, event.index) != GpuWork::kNone : depth_[span] == depth;
        if (member) sequence_.push_back(span);
      }
      names_.clear();
      for (const std::uint32_t span : sequence_)
        names_.push_back(trace_->track(track).spans().name[graph_.event(span).index]);
      for (std::size_t chain = 0; chain < edits_->chain_count(); ++chain) {
        edits_->for_each_run(chain, names_, [&](std::size_t at) {
          fuse_run({sequence_.data() + at, edits_->chain_length(chain)},
                   edits_->chain_factor(chain), gpu);
        });
      }
    }
    first = last;
  }
}

void StepReplay::fuse_run(std::span<const std::uint32_t> members, double factor, bool gpu) {
  const auto duration = [&](std::uint32_t span) {
    return static_cast<double>(graph_.duration(span));
  };
  double summed = 0;
  for (const std::uint32_t span : members)
    summed += duration(span);
  const double head = duration(members.front());
  if (head <= 0) return;
  // The first member becomes the fused span; a host op's children scale with it.
  const auto scale_subtree = [&](std::uint32_t span, double by) {
    const trace::TimeNs ends = graph_.time(DependencyGraph::end_node(span));
    factor_[span] *= by;
    for (std::uint32_t inner = span + 1; !gpu && inner < graph_.span_count() &&
                                         graph_.event(inner).track == graph_.event(span).track &&
                                         graph_.time(DependencyGraph::start_node(inner)) < ends;
         ++inner) {
      factor_[inner] *= by;
    }
  };
  scale_subtree(members.front(), factor * summed / head);
  for (const std::uint32_t span : members.subspan(1)) {
    scale_subtree(span, 0);
    fused_follower_[span] = 1;
    if (!gpu) continue;
    // The fused kernel is launched once: the later members' launch calls are gone.
    if (const auto launch = context_->launch_of(graph_.event(span))) {
      const std::uint32_t call = graph_.local_span(launch->track, launch->index);
      if (call != trace::kNoIndex) factor_[call] = 0;
    }
  }
}

double StepReplay::edge_length(std::uint32_t e, bool edited) const {
  const DependencyEdge& edge = graph_.edges()[e];
  const auto from = static_cast<double>(graph_.time(edge.from));
  double measured = binding_[edge.to] == e ? static_cast<double>(graph_.time(edge.to)) - from
                                           : static_cast<double>(graph_.arrival(edge)) - from;
  if ((edge.kind == EdgeKind::kHostOrder && edge.owner != trace::kNoIndex) ||
      edge.kind == EdgeKind::kGpuActivity) {
    measured *= own_scale_[edge.owner];
  }
  if (!edited) return measured;
  switch (edge.kind) {
    case EdgeKind::kHostOrder: {
      if (edge.owner == trace::kNoIndex) return measured;
      const double wait = edge.in_input_wait ? edits_->input_wait_factor() : 1;
      // With the input wait edited, a wait for a loader thread's batch takes its share of the
      // measured wait, as a wait without a loader thread does (its handoff is dropped below).
      if (wait != 1 && graph_.is_blocked_wait(edge))
        return wait * static_cast<double>(graph_.time(edge.to) - graph_.time(edge.from));
      // A CUDA graph replays the region's GPU work without its host work; waits stay.
      const bool replayed_by_graph =
          in_graph_[edge.owner] != 0 && !edge.in_input_wait && !graph_.is_blocked_wait(edge);
      return replayed_by_graph
                 ? 0
                 : measured * factor_[edge.owner] * wait * cpu_share_factor_[edge.owner];
    }
    case EdgeKind::kGpuActivity:
      return measured * factor_[edge.owner];
    case EdgeKind::kLaunch: {
      // A fused chain's later members start right after the first, launched with it.
      if (fused_follower_[DependencyGraph::span_of(edge.to)] != 0) return -1;
      // The call's own time scales with it; the latency from its return to the GPU does not.
      const auto call = static_cast<double>(graph_.duration(edge.owner));
      const double own = std::min(measured, call);
      const double own_factor = in_graph_[edge.owner] != 0 ? 0 : factor_[edge.owner];
      return own * own_factor + (measured - own);
    }
    case EdgeKind::kSyncReturn:
      return removed_[edge.owner] != 0 ? -1 : measured;
    case EdgeKind::kHandoff:
      return edits_->input_wait_factor() != 1 && edge.in_input_wait ? -1 : measured;
    case EdgeKind::kEnqueue:
    case EdgeKind::kQueueSlot:
      return measured;
    case EdgeKind::kStreamOrder:
      return fused_follower_[edge.owner] != 0 ? 0 : measured;
    case EdgeKind::kEventWait:
      return measured;
  }
  return measured;
}

const std::vector<double>& StepReplay::run(bool edited) {
  times_.assign(graph_.node_count(), kNotYet);
  const std::vector<DependencyEdge>& edges = graph_.edges();
  for (const std::uint32_t node : graph_.topological_order()) {
    // Nothing in the window leads to it (a thread's first span, work queued before the window):
    // it happens when it was measured to.
    if (times_[node] == kNotYet) times_[node] = static_cast<double>(graph_.time(node));
    times_[node] = std::max(times_[node], floor_[node]);
    for (const std::uint32_t e : graph_.out_edges(node)) {
      const double length = edge_length(e, edited);
      if (length < 0) continue;
      double& next = times_[edges[e].to];
      next = std::max(next, times_[node] + length);
    }
  }
  return times_;
}

double StepReplay::gpu_floor_ns(std::size_t index) {
  stream_busy_.assign(trace_->tracks().size(), 0);
  double floor = 0;
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
    const trace::EventRef event = graph_.event(span);
    if (trace_->track(event.track).info().kind != trace::TrackKind::kGpuStream ||
        graph_.gpu_work_of(event.track, event.index) == GpuWork::kNone ||
        context_->step_of_gpu_activity(event) != index) {
      continue;
    }
    const auto measured = static_cast<double>(graph_.duration(span));
    stream_busy_[event.track] += measured * factor_[span];
    floor = std::max(floor, stream_busy_[event.track]);
  }
  return floor;
}

std::string StepReplay::missing_dependencies(const Step& step) {
  std::size_t unlinked = 0;
  std::uint32_t track = trace::kNoIndex;
  for (std::uint32_t span = 0; span < graph_.span_count(); ++span) {
    const trace::EventRef event = graph_.event(span);
    if (trace_->track(event.track).info().kind != trace::TrackKind::kGpuStream ||
        graph_.gpu_work_of(event.track, event.index) == GpuWork::kNone) {
      continue;
    }
    // A stream's first activity in the graph may have been queued before the trace or the step
    // began (no launch, nothing before it): it happens when it was measured to.
    const bool first_of_stream = event.track != track;
    track = event.track;
    const std::uint32_t start = DependencyGraph::start_node(span);
    const trace::TimeNs begins = graph_.time(start);
    if (first_of_stream || begins < step.start || begins >= step.end ||
        binding_[start] != kNoEdge) {
      continue;
    }
    ++unlinked;
  }
  if (unlinked == 0) return {};
  return fmt::format(
      "{} of its GPU activities have neither a launch call linked to them (a correlation flow) "
      "nor earlier work on their stream, so nothing tells when they could start",
      unlinked);
}

}  // namespace tscope::analyzer
