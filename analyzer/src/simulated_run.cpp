#include "simulated_run.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tscope::analyzer {

SimulatedRun::SimulatedRun(const trace::Trace& trace)
    : trace_(&trace), kept_spans_(trace.tracks().size()) {
  // Interned in the same order, every string keeps its id, so records copy over unchanged.
  for (trace::StringId id = 1; id < trace.strings().size(); ++id)
    builder_.intern(trace.string(id));
  for (const trace::Process& process : trace.processes())
    builder_.add_process(process);
  for (std::uint32_t track = 0; track < trace.tracks().size(); ++track) {
    builder_.add_track(trace.track(track).info());
    kept_spans_[track].assign(trace.track(track).spans().size(), trace::kNoIndex);
  }
}

void SimulatedRun::add_step(const Step& step, const StepReplay& replay, double predicted_ns) {
  if (!started_) cursor_ = static_cast<double>(step.start);
  started_ = true;
  const DependencyGraph& graph = replay.graph();
  const std::vector<double>& times = replay.predicted_times();
  const double step_start = replay.step_span() == trace::kNoIndex
                                ? static_cast<double>(step.start)
                                : times[DependencyGraph::start_node(replay.step_span())];
  const double offset = cursor_ - step_start;
  for (std::uint32_t span = 0; span < graph.span_count(); ++span) {
    const trace::EventRef event = graph.event(span);
    const trace::TimeNs measured_start = graph.time(DependencyGraph::start_node(span));
    // A span across a step boundary is in both steps' graphs: it goes where it starts.
    if (measured_start < step.start || measured_start >= step.end) continue;
    trace::SpanRecord record = trace_->span_record(event.track, event.index);
    record.start =
        static_cast<trace::TimeNs>(std::llround(times[DependencyGraph::start_node(span)] + offset));
    record.end = std::max(
        record.start,
        static_cast<trace::TimeNs>(std::llround(times[DependencyGraph::end_node(span)] + offset)));
    kept_spans_[event.track][event.index] = builder_.add_span(event.track, record).index;
  }
  cursor_ += predicted_ns;
}

trace::Trace SimulatedRun::finish(std::span<const WhatIfEdit> edits) {
  for (const trace::Flow& flow : trace_->flows()) {
    if (flow.from.kind != trace::EventKind::kSpan || flow.to.kind != trace::EventKind::kSpan)
      continue;
    const std::uint32_t from = kept_spans_[flow.from.track][flow.from.index];
    const std::uint32_t to = kept_spans_[flow.to.track][flow.to.index];
    if (from == trace::kNoIndex || to == trace::kNoIndex) continue;
    builder_.add_flow({flow.kind,
                       flow.id,
                       {trace::EventKind::kSpan, flow.from.track, from},
                       {trace::EventKind::kSpan, flow.to.track, to}});
  }
  trace::TraceMetadata& metadata = builder_.metadata();
  metadata = trace_->metadata();
  metadata.dropped_events = 0;
  metadata.lost_bytes = 0;
  metadata.lost_records = 0;
  std::string applied;
  for (const WhatIfEdit& edit : edits)
    applied += (applied.empty() ? "" : "; ") + edit.text;
  metadata.values["whatif.edits"] = applied.empty() ? "none (the replay of the run)" : applied;
  // The original's flows are all there is: relinking by correlation id would add none.
  return builder_.finalize({.link_correlated_events = false});
}

}  // namespace tscope::analyzer
