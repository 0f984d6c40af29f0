#pragma once
// The GPU activities of each stream that belong to the selected steps (by their launch, see
// AnalysisContext::step_of_gpu_activity), in start order, with the times of their launch calls:
// what the per-stream idle breakdown and the launch-queue length are computed from.

#include <cstdint>
#include <vector>

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

struct StreamActivity {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  std::uint32_t index = 0;  // span index on the stream's track
  bool launched = false;    // a launch call is known
  trace::TimeNs launch_start = 0;
  trace::TimeNs launch_end = 0;
  trace::EventRef launch;
};

struct StreamActivities {
  std::uint32_t track = 0;
  std::vector<StreamActivity> activities;
};

// Streams with at least one activity in the steps, in track order. Analyses read them through
// AnalysisContext::stream_activities(), which builds them once.
std::vector<StreamActivities> build_stream_activities(const AnalysisContext& context);

}  // namespace tscope::analyzer
