#include "stream_activities.h"

namespace tscope::analyzer {

std::vector<StreamActivities> build_stream_activities(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  const std::size_t no_step = context.steps().steps.size();
  std::vector<StreamActivities> streams;
  for (const GpuStream& gpu : context.gpu_streams()) {
    StreamActivities stream{gpu.track, StreamActivityColumns(trace.track(gpu.track).spans())};
    stream.activities.reserve(gpu.activities.size());
    for (const GpuActivity& each : gpu.activities) {
      if (each.step == no_step) continue;
      std::optional<trace::TimeNs> launch_start;
      if (const auto launch = context.launch_of({trace::EventKind::kSpan, gpu.track, each.index}))
        launch_start = trace.track(launch->track).spans().start[launch->index];
      stream.activities.push_back(each.index, launch_start);
    }
    if (!stream.activities.empty()) streams.push_back(std::move(stream));
  }
  return streams;
}

}  // namespace tscope::analyzer
