#include "tscope/analyzer/launch.h"

#include <algorithm>
#include <string>

#include "event_classes.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

using trace::EventKind;
using trace::EventRef;
using trace::TimeNs;

constexpr std::size_t kMaxEvidence = 20;
// Most kernels shorter than their launch call mean the host, not the GPU, sets the pace.
constexpr double kShortKernelMajority = 0.5;

struct LaunchStats {
  double kernels = 0;
  double short_kernels = 0;
  double late_launches = 0;
  double slow_runtime_calls = 0;
  double op_count = 0;
  double op_host_ns = 0;
  std::vector<std::pair<TimeNs, EventRef>> worst;  // (how bad, event) for evidence
  std::vector<EventRef> short_evidence;
};

void kernel_launches(const AnalysisContext& context, LaunchStats& stats) {
  const trace::Trace& trace = context.trace();
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kGpuStream) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != trace::Category::kKernel) continue;
      if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) continue;
      const EventRef kernel{EventKind::kSpan, track_index, i};
      const auto launch = context.launch_of(kernel);
      if (!launch) continue;
      ++stats.kernels;
      const trace::SpanColumns& host = trace.track(launch->track).spans();
      const TimeNs launch_ns = host.end[launch->index] - host.start[launch->index];
      if (spans.end[i] - spans.start[i] < launch_ns) {
        ++stats.short_kernels;
        // Ranked after every late launch and slow call, which say more.
        if (stats.short_evidence.size() < kMaxEvidence) stats.short_evidence.push_back(kernel);
      }
      const TimeNs delay = spans.start[i] - host.start[launch->index];
      if (delay > context.options().launch_delay_ns) {
        ++stats.late_launches;
        stats.worst.emplace_back(delay, kernel);
      }
    }
  }
}

void host_calls(const AnalysisContext& context, LaunchStats& stats) {
  const trace::Trace& trace = context.trace();
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) continue;
      const TimeNs length = spans.end[i] - spans.start[i];
      if (is_runtime_call(spans.category[i]) &&
          !is_sync_call(spans.category[i], trace.string(spans.name[i])) &&
          length > context.options().slow_runtime_ns) {
        ++stats.slow_runtime_calls;
        stats.worst.emplace_back(length, EventRef{EventKind::kSpan, track_index, i});
      }
      if (track_index == context.main_thread() && spans.category[i] == trace::Category::kCpuOp &&
          spans.depth[i] <= 1) {
        ++stats.op_count;
        stats.op_host_ns += static_cast<double>(length);
      }
    }
  }
}

}  // namespace

std::vector<Finding> find_launch_bound(const AnalysisContext& context) {
  if (!context.has_gpu()) return {};
  LaunchStats stats;
  kernel_launches(context, stats);
  host_calls(context, stats);
  if (stats.kernels == 0) return {};
  const TimeBreakdown& time = context.time_breakdown();
  const double host_wait_share = time.step_ns > 0 ? time.gpu_idle_host_wait_ns / time.step_ns : 0;
  const double short_share = stats.short_kernels / stats.kernels;
  Severity severity = severity_for_share(host_wait_share);
  if (short_share > kShortKernelMajority) severity = std::max(severity, Severity::kLow);
  if (severity == Severity::kInfo && stats.late_launches == 0 && stats.slow_runtime_calls == 0)
    return {};

  Finding finding;
  finding.kind = "launch_bound";
  finding.severity = severity;
  finding.title = "The GPU waits for kernel launches " + format_percent(host_wait_share) +
                  " of the step; " + format_percent(short_share) +
                  " of kernels are shorter than their launch";
  finding.cost = {time.gpu_idle_host_wait_ns, host_wait_share, 0};
  finding.estimated_gain_ns_per_step = time.gpu_idle_host_wait_ns;
  const double steps = context.step_count();
  const double mean_op_ns = stats.op_count > 0 ? stats.op_host_ns / stats.op_count : 0;
  finding.metrics = {{"kernels", stats.kernels, "count"},
                     {"short_kernels", stats.short_kernels, "count"},
                     {"short_kernel_share", short_share, "ratio"},
                     {"launch_delays_over_cutoff", stats.late_launches, "count"},
                     {"slow_runtime_calls", stats.slow_runtime_calls, "count"},
                     {"host_wait_idle_ns_per_step", time.gpu_idle_host_wait_ns, "ns"},
                     {"ops_per_step", stats.op_count / steps, "count"},
                     {"mean_host_ns_per_op", mean_op_ns, "ns"}};
  std::sort(stats.worst.begin(), stats.worst.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < std::min(kMaxEvidence, stats.worst.size()); ++i) {
    finding.evidence.push_back(stats.worst[i].second);
  }
  for (std::size_t i = 0; finding.evidence.size() < kMaxEvidence && i < stats.short_evidence.size();
       ++i) {
    finding.evidence.push_back(stats.short_evidence[i]);
  }
  finding.explanation =
      std::to_string(static_cast<long>(stats.short_kernels)) + " of " +
      std::to_string(static_cast<long>(stats.kernels)) +
      " kernels run for less time than the call that launched them; " +
      std::to_string(static_cast<long>(stats.late_launches)) + " started over " +
      format_duration(static_cast<double>(context.options().launch_delay_ns)) +
      " after their launch and " + std::to_string(static_cast<long>(stats.slow_runtime_calls)) +
      " runtime calls took over " +
      format_duration(static_cast<double>(context.options().slow_runtime_ns)) +
      " (Holistic Trace Analysis' cut-offs). The host spends " + format_duration(mean_op_ns) +
      " per operator, " + format_duration(stats.op_count / steps * mean_op_ns) +
      " per step, and the GPU idles " + format_duration(time.gpu_idle_host_wait_ns) +
      " per step waiting for launches.";
  finding.recommendation =
      "Give the GPU more work per launch: larger batches, fused kernels, CUDA graphs to replay a "
      "step's launches at once, or less host work per operator.";
  return {finding};
}

}  // namespace tscope::analyzer
