#pragma once
// The walk most GPU analyses start from: every span of every GPU stream (kernels, copies,
// memsets, collectives), stream by stream in track order and in time order within a stream.

#include <cstdint>

#include "tscope/trace/event_ref.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// Calls visit(spans, i, ref) for each such span: its stream's columns, its index in them and its
// reference.
template <typename Visit>
void for_each_gpu_span(const trace::Trace& trace, Visit&& visit) {
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i)
      visit(spans, i, trace::EventRef{trace::EventKind::kSpan, track_index, i});
  }
}

}  // namespace tscope::analyzer
