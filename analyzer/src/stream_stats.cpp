#include "tscope/analyzer/stream_stats.h"

#include <algorithm>
#include <array>

#include "launch_queue.h"
#include "stream_idle.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kLaunchQueueFull = "launch_queue_full";
constexpr std::array kFindingKinds{kLaunchQueueFull};

constexpr std::size_t kMaxEvidence = 20;

}  // namespace

std::vector<StreamStats> compute_stream_stats(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  std::vector<StreamStats> result;
  for (const StreamActivities& stream : context.stream_activities()) {
    StreamStats stats;
    stats.track = stream.track;
    stats.name = std::string(trace.string(trace.track(stream.track).info().name));
    stats.activities = stream.activities.size();
    stats.idle = stream_idle(stream, context.options().kernel_wait_ns, context.step_count());
    stats.queue = replay_launch_queue(context, stream).queue;
    result.push_back(std::move(stats));
  }
  return result;
}

std::vector<Finding> find_full_launch_queue(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  double full_ns = 0;
  double max_length = 0;
  std::vector<std::pair<trace::TimeNs, trace::EventRef>> blocked;
  std::string worst_stream;
  double worst_full_ns = 0;
  for (const StreamActivities& stream : context.stream_activities()) {
    QueueReplay replay = replay_launch_queue(context, stream);
    full_ns += replay.queue.full_ns;
    max_length = std::max(max_length, replay.queue.max);
    if (replay.queue.full_ns > worst_full_ns) {
      worst_full_ns = replay.queue.full_ns;
      worst_stream = std::string(trace.string(trace.track(stream.track).info().name));
    }
    blocked.insert(blocked.end(), replay.full_launches.begin(), replay.full_launches.end());
  }
  if (full_ns <= 0) return {};

  const double step_ns = context.steps().mean_ns();
  const double share = step_ns > 0 ? full_ns / step_ns : 0;
  Finding finding;
  finding.kind = kLaunchQueueFull;
  finding.severity = severity_for_share(share);
  finding.title = "The host is blocked on a full launch queue " + format_percent(share) +
                  " of the step (" + worst_stream + ")";
  finding.cost = {full_ns, share, 0};
  std::sort(blocked.begin(), blocked.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < std::min(kMaxEvidence, blocked.size()); ++i)
    finding.evidence.push_back(blocked[i].second);
  finding.metrics = {{"full_queue_ns_per_step", full_ns, "ns"},
                     {"max_queue_length", max_length, "count"},
                     {"blocked_launches", static_cast<double>(blocked.size()), "count"}};
  finding.explanation =
      "A stream held at least " + std::to_string(static_cast<int>(kFullLaunchQueue)) +
      " launched kernels that had not started for " + format_duration(full_ns) +
      " per step; CUDA then blocks each launch call until a slot frees, so the host waits on the "
      "GPU (" +
      std::to_string(blocked.size()) + " launch calls found the queue full; longest queue " +
      std::to_string(static_cast<long>(max_length)) + ").";
  finding.recommendation =
      "The GPU sets the pace: make its work faster (fused kernels, Tensor Cores, mixed "
      "precision, larger kernels) rather than the host's; the blocked host time could prepare "
      "the next batches instead, and a synchronization that waits for the queue to drain costs "
      "as much.";
  return {finding};
}

extern constinit const Analysis kQueueAnalysis{
    "queue", kFindingKinds, {}, &findings_of<&find_full_launch_queue>};

}  // namespace tscope::analyzer
