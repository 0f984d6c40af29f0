#include "stream_activities.h"

namespace tscope::analyzer {

std::vector<StreamActivities> build_stream_activities(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const std::size_t no_step = context.steps().steps.size();
  std::vector<StreamActivities> streams;
  for (const GpuStream& gpu : context.gpu_streams()) {
    const trace::SpanColumns& spans = trace.track(gpu.track).spans();
    StreamActivities stream{gpu.track, {}};
    stream.activities.reserve(gpu.activities.size());
    for (const GpuActivity& each : gpu.activities) {
      if (each.step == no_step) continue;
      const trace::EventRef ref{trace::EventKind::kSpan, gpu.track, each.index};
      StreamActivity activity;
      activity.start = spans.start[each.index];
      activity.end = spans.end[each.index];
      activity.index = each.index;
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
