#include "launch_queue.h"

#include <algorithm>

namespace tscope::analyzer {

std::vector<std::uint32_t> launch_order(const StreamActivities& stream) {
  const StreamActivityColumns& activities = stream.activities;
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < activities.size(); ++i) {
    if (activities[i].launched) order.push_back(i);
  }
  const auto by_launch = [&](std::uint32_t a, std::uint32_t b) {
    return activities[a].launch_start < activities[b].launch_start;
  };
  // Launches are issued in the order their work runs on a stream, so this is rarely needed. Ties
  // stay in activity order: the indices are distinct, so they break ties as a stable sort would.
  if (!std::is_sorted(order.begin(), order.end(), by_launch)) {
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return by_launch(a, b) || (!by_launch(b, a) && a < b);
    });
  }
  return order;
}

QueueReplay replay_launch_queue(const AnalysisContext& context, const StreamActivities& stream) {
  const trace::Trace& trace = context.trace();
  QueueReplay replay;
  LaunchQueue& queue = replay.queue;
  double length = 0;
  double sum = 0;
  double weighted = 0;
  trace::TimeNs first_time = 0;
  trace::TimeNs previous_time = 0;
  for_each_queue_change(stream, [&](trace::TimeNs time, int delta, const StreamActivity& activity) {
    // The length reached at the previous change lasted until this one.
    if (queue.samples > 0) {
      const auto lasts = static_cast<double>(time - previous_time);
      weighted += length * lasts;
      if (length >= kFullLaunchQueue) queue.full_ns += lasts;
    } else {
      first_time = time;
    }
    length += delta;
    sum += length;
    queue.max = std::max(queue.max, length);
    if (delta > 0 && length > kFullLaunchQueue) {
      const trace::EventRef launch =
          *context.launch_of({trace::EventKind::kSpan, stream.track, activity.index});
      const trace::SpanColumns& host = trace.track(launch.track).spans();
      replay.full_launches.emplace_back(host.end(launch.index) - host.start[launch.index], launch);
    }
    previous_time = time;
    ++queue.samples;
  });
  if (queue.samples > 0) {
    queue.sample_mean = sum / static_cast<double>(queue.samples);
    const auto span = static_cast<double>(previous_time - first_time);
    queue.time_mean = span > 0 ? weighted / span : 0;
  }
  queue.full_ns /= context.step_count();
  return replay;
}

}  // namespace tscope::analyzer
