#include "launch_queue.h"

#include <algorithm>

namespace tscope::analyzer {

QueueReplay replay_launch_queue(const StreamActivities& stream, double step_count) {
  struct Change {
    trace::TimeNs time;
    int delta;
    const StreamActivity* activity;
  };
  std::vector<Change> changes;
  for (const StreamActivity& activity : stream.activities) {
    if (!activity.launched) continue;
    changes.push_back({activity.launch_start, +1, &activity});
    changes.push_back({activity.start, -1, &activity});
  }
  // Stable, so that changes at one instant keep the activities' order, as HTA's concatenation
  // of launches and kernels sorted by time does for most ties.
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.time < b.time; });

  QueueReplay replay;
  LaunchQueue& queue = replay.queue;
  double length = 0;
  double sum = 0;
  double weighted = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    length += changes[i].delta;
    sum += length;
    queue.max = std::max(queue.max, length);
    if (i + 1 < changes.size()) {
      const auto lasts = static_cast<double>(changes[i + 1].time - changes[i].time);
      weighted += length * lasts;
      if (length >= kFullLaunchQueue) queue.full_ns += lasts;
    }
    if (changes[i].delta > 0 && length > kFullLaunchQueue) {
      const StreamActivity& activity = *changes[i].activity;
      replay.full_launches.emplace_back(activity.launch_end - activity.launch_start,
                                        activity.launch);
    }
  }
  queue.samples = changes.size();
  if (!changes.empty()) {
    queue.sample_mean = sum / static_cast<double>(changes.size());
    const auto span = static_cast<double>(changes.back().time - changes.front().time);
    queue.time_mean = span > 0 ? weighted / span : 0;
  }
  queue.full_ns /= step_count;
  return replay;
}

}  // namespace tscope::analyzer
