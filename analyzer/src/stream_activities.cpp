#include "stream_activities.h"

#include "event_classes.h"

namespace tscope::analyzer {

std::vector<StreamActivities> stream_activities(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  std::vector<StreamActivities> streams;
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = track.spans();
    StreamActivities stream{track_index, {}};
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (gpu_work(spans.category[i], trace.string(spans.name[i])) == GpuWork::kNone) continue;
      const trace::EventRef ref{trace::EventKind::kSpan, track_index, i};
      if (context.step_of_gpu_activity(ref) == context.steps().steps.size()) continue;
      StreamActivity activity;
      activity.start = spans.start[i];
      activity.end = spans.end[i];
      activity.index = i;
      if (const auto launch = context.launch_of(ref)) {
        const trace::SpanColumns& host = trace.track(launch->track).spans();
        activity.launched = true;
        activity.launch_start = host.start[launch->index];
        activity.launch_end = host.end[launch->index];
        activity.launch = *launch;
      }
      stream.activities.push_back(activity);
    }
    if (!stream.activities.empty()) streams.push_back(std::move(stream));
  }
  return streams;
}

}  // namespace tscope::analyzer
