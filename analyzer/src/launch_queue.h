#pragma once
// The launch-queue length of one stream over time (see LaunchQueue in
// tscope/analyzer/stream_stats.h), and the launch calls made while the queue was full.

#include <vector>

#include "stream_activities.h"
#include "tscope/analyzer/stream_stats.h"

namespace tscope::analyzer {

struct QueueReplay {
  LaunchQueue queue;
  // (launch call length, launch call) for the calls that found the queue full.
  std::vector<std::pair<trace::TimeNs, trace::EventRef>> full_launches;
};

QueueReplay replay_launch_queue(const StreamActivities& stream, double step_count);

}  // namespace tscope::analyzer
