#pragma once
// The idle breakdown of one stream (see StreamIdle in tscope/analyzer/stream_stats.h).

#include "stream_activities.h"
#include "tscope/analyzer/stream_stats.h"

namespace tscope::analyzer {

StreamIdle stream_idle(const StreamActivities& stream, trace::TimeNs kernel_wait_ns,
                       double step_count);

}  // namespace tscope::analyzer
