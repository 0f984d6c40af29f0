#pragma once
// Per GPU stream, beside the whole-GPU view of the time breakdown: idle time by cause with the
// statistics of the idle intervals, and the launch-queue length over time, both as Holistic
// Trace Analysis computes them (its idle_time_breakdown and queue_length_summary), over the
// activities launched in the selected steps. A host that is blocked because a stream's queue is
// full becomes a finding.

#include <cstdint>
#include <string>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

// CUDA blocks a launch while the stream already holds this many launched, unstarted kernels
// (HTA's max_queue_length default).
inline constexpr double kFullLaunchQueue = 1024;

struct IdleIntervalStats {
  std::size_t count = 0;  // gaps longer than zero between consecutive activities
  double p50_ns = 0;      // nearest rank
  double p95_ns = 0;
  double max_ns = 0;
};

// Gaps between consecutive activities of one stream. A gap is host wait when the launch call of
// the activity that ends it began after the previous one ended, else kernel wait when shorter
// than kernel_wait_ns, else other. Times per mean step; counts over all steps, every pair of
// consecutive activities counted as HTA counts them (back-to-back ones as kernel wait).
struct StreamIdle {
  double host_wait_ns = 0;
  double kernel_wait_ns = 0;
  double other_ns = 0;
  std::size_t host_wait_count = 0;
  std::size_t kernel_wait_count = 0;
  std::size_t other_count = 0;
  IdleIntervalStats intervals;
};

// Launched but not yet started activities, sampled at every launch call's start (+1) and every
// activity's start (-1), as HTA samples it.
struct LaunchQueue {
  std::size_t samples = 0;
  double sample_mean = 0;  // HTA's mean: over samples
  double time_mean = 0;    // weighted by how long each length lasted
  double max = 0;
  double full_ns = 0;  // per mean step, time at or above kFullLaunchQueue
};

struct StreamStats {
  std::uint32_t track = 0;
  std::string name;
  std::size_t activities = 0;
  StreamIdle idle;
  LaunchQueue queue;
};

std::vector<StreamStats> compute_stream_stats(const AnalysisContext& context);

// Kind `launch_queue_full`: time in which some stream's launch queue was full, so that the next
// launch call blocks the host.
std::vector<Finding> find_full_launch_queue(const AnalysisContext& context);

}  // namespace tscope::analyzer
