#pragma once
// The launch-queue length of one stream over time (see LaunchQueue in
// tscope/analyzer/stream_stats.h), and the launch calls made while the queue was full.

#include <cstdint>
#include <vector>

#include "stream_activities.h"
#include "tscope/analyzer/stream_stats.h"

namespace tscope::analyzer {

struct QueueReplay {
  LaunchQueue queue;
  // (launch call length, launch call) for the calls that found the queue full.
  std::vector<std::pair<trace::TimeNs, trace::EventRef>> full_launches;
};

QueueReplay replay_launch_queue(const AnalysisContext& context, const StreamActivities& stream);

// Indices of the launched activities of `stream` by the start of their launch call, ties in
// activity order.
std::vector<std::uint32_t> launch_order(const StreamActivities& stream);

// Calls visit(time, delta, activity) for every change of the queue length in time order: +1 at
// each launch call's start, -1 at each launched activity's start. At one instant changes come in
// activity order, a launch before its own activity's start, as a stable sort of the activities'
// changes orders them (and HTA's concatenation of launches and kernels sorted by time for most
// ties). Both sides are already in time order, so they are merged without sorting the changes.
template <typename Visit>
void for_each_queue_change(const StreamActivities& stream, Visit&& visit) {
  const StreamActivityColumns& activities = stream.activities;
  const std::vector<std::uint32_t> launches = launch_order(stream);
  std::size_t next_launch = 0;
  std::size_t next_start = 0;
  const auto skip_unlaunched = [&] {
    while (next_start < activities.size() && !activities[next_start].launched)
      ++next_start;
  };
  skip_unlaunched();
  while (next_launch < launches.size() || next_start < activities.size()) {
    bool launch_first = next_start == activities.size();
    if (!launch_first && next_launch < launches.size()) {
      const trace::TimeNs launch_time = activities[launches[next_launch]].launch_start;
      const trace::TimeNs start_time = activities[next_start].start;
      launch_first = launch_time < start_time ||
                     (launch_time == start_time && launches[next_launch] <= next_start);
    }
    if (launch_first) {
      const StreamActivity activity = activities[launches[next_launch++]];
      visit(activity.launch_start, +1, activity);
    } else {
      const StreamActivity activity = activities[next_start++];
      visit(activity.start, -1, activity);
      skip_unlaunched();
    }
  }
}

}  // namespace tscope::analyzer
