#include "tscope/analyzer/launch.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "event_classes.h"
#include "launch_queue.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kLaunchBound = "launch_bound";
constexpr std::array kFindingKinds{kLaunchBound};

constexpr std::size_t kMaxEvidence = 20;
// Most kernels shorter than their launch call mean the host, not the GPU, sets the pace.
constexpr double kShortKernelMajority = 0.5;

struct LaunchStats {
  double launches = 0;  // GPU activities paired with the launch call that queued them
  double kernels = 0;
  double short_kernels = 0;        // shorter than a launch call of at most slow_runtime_ns
  double shorter_than_launch = 0;  // shorter than the launch call, however long the call
  double late_launches = 0;
  // Of those, the ones whose stream sat idle before them for longer than the gaps between queued
  // kernels (HTA's kernel wait): not queued behind earlier work.
  double late_launches_on_idle_streams = 0;
  double slow_launch_calls = 0;
  double delay_sum_ns = 0;
  double delay_max_ns = 0;
  double op_count = 0;
  double op_host_ns = 0;
  std::vector<std::pair<TimeNs, EventRef>> worst;  // (how bad, event) for evidence
  std::vector<EventRef> short_evidence;
};

// Holistic Trace Analysis' kernel launch statistics (hta/analyzers/cuda_kernel_analysis.py):
// every kernel, copy and memset paired with its launch call; the delay runs from the end of the
// call, clipped at zero; only launch calls count as slow runtime calls.
void kernel_launches(const AnalysisContext& context, LaunchStats& stats) {
  const trace::Trace& trace = context.trace();
  const AnalysisOptions& options = context.options();
  // Launch call names are few and repeat: each is matched once.
  std::vector<std::uint8_t> is_launch_name;
  constexpr std::uint8_t kUnknown = 2;
  for (const GpuStream& stream : context.gpu_streams()) {
    const trace::SpanColumns& spans = trace.track(stream.track).spans();
    TimeNs stream_free = std::numeric_limits<TimeNs>::min();
    for (const GpuActivity& each : stream.activities) {
      const std::uint32_t i = each.index;
      const TimeNs previous_end = stream_free;
      stream_free = std::max(stream_free, spans.end(i));
      const EventRef activity{EventKind::kSpan, stream.track, i};
      const auto launch = context.launch_of(activity);
      if (!launch) continue;
      const trace::SpanColumns& host = trace.track(launch->track).spans();
      const trace::StringId call_name = host.name[launch->index];
      if (is_launch_name.size() <= call_name) is_launch_name.resize(call_name + 1, kUnknown);
      if (is_launch_name[call_name] == kUnknown)
        is_launch_name[call_name] = launch_api(trace.string(call_name)) != LaunchApi::kNone;
      if (is_launch_name[call_name] == 0) continue;
      // A launched activity's step is its launch call's.
      if (each.step == context.steps().steps.size()) continue;
      ++stats.launches;
      stats.kernels += spans.category[i] == trace::Category::kKernel;
      const TimeNs call_ns = host.end(launch->index) - host.start[launch->index];
      if (spans.end(i) - spans.start[i] < call_ns) {
        ++stats.shorter_than_launch;
        if (call_ns <= options.slow_runtime_ns) {
          ++stats.short_kernels;
          // Ranked after every late launch and slow call, which say more.
          if (stats.short_evidence.size() < kMaxEvidence) stats.short_evidence.push_back(activity);
        }
      }
      if (call_ns > options.slow_runtime_ns) {
        ++stats.slow_launch_calls;
        stats.worst.emplace_back(call_ns, *launch);
      }
      const TimeNs delay = std::max<TimeNs>(0, spans.start[i] - host.end(launch->index));
      stats.delay_sum_ns += static_cast<double>(delay);
      stats.delay_max_ns = std::max(stats.delay_max_ns, static_cast<double>(delay));
      if (delay > options.launch_delay_ns) {
        ++stats.late_launches;
        const bool idle_before = previous_end == std::numeric_limits<TimeNs>::min() ||
                                 spans.start[i] - previous_end > options.kernel_wait_ns;
        stats.late_launches_on_idle_streams += idle_before ? 1 : 0;
        stats.worst.emplace_back(delay, activity);
      }
    }
  }
}

// Slow launch calls that CUDA blocked on a full launch queue: they waited for the GPU, so they do
// not make the host the bottleneck (`launch_queue_full` reports them).
double slow_calls_on_full_queues(const AnalysisContext& context) {
  double slow = 0;
  for (const StreamActivities& stream : context.stream_activities()) {
    for (const auto& [call_ns, call] : replay_launch_queue(context, stream).full_launches)
      slow += call_ns > context.options().slow_runtime_ns ? 1 : 0;
  }
  return slow;
}

void host_ops(const AnalysisContext& context, LaunchStats& stats) {
  const trace::Trace& trace = context.trace();
  if (context.main_thread() == trace::kNoIndex) return;
  const trace::SpanColumns& spans = trace.track(context.main_thread()).spans();
  for (std::uint32_t i = 0; i < spans.size(); ++i) {
    if (spans.category[i] != trace::Category::kCpuOp || spans.depth[i] > 1) continue;
    if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) continue;
    ++stats.op_count;
    stats.op_host_ns += static_cast<double>(spans.end(i) - spans.start[i]);
  }
}

}  // namespace

std::vector<Finding> find_launch_bound(const AnalysisContext& context) {
  if (!context.has_gpu()) return {};
  LaunchStats stats;
  kernel_launches(context, stats);
  host_ops(context, stats);
  if (stats.launches == 0) return {};
  const TimeBreakdown& time = context.time_breakdown();
  const double host_wait_share = time.step_ns > 0 ? time.gpu_idle_host_wait_ns / time.step_ns : 0;
  const double short_share = stats.short_kernels / stats.launches;
  Severity severity = severity_for_share(host_wait_share);
  if (short_share > kShortKernelMajority) severity = std::max(severity, Severity::kLow);
  const bool slow_host_calls = stats.slow_launch_calls > slow_calls_on_full_queues(context);
  if (severity == Severity::kInfo && stats.late_launches_on_idle_streams == 0 && !slow_host_calls)
    return {};

  Finding finding;
  finding.kind = kLaunchBound;
  finding.severity = severity;
  finding.title = "The GPU waits for kernel launches " + format_percent(host_wait_share) +
                  " of the step; " + format_percent(short_share) +
                  " of launches run shorter than their launch call";
  finding.cost = {time.gpu_idle_host_wait_ns, host_wait_share, 0};
  finding.estimated_gain_ns_per_step = time.gpu_idle_host_wait_ns;
  // The launches' cost is the host's: the same fix as a host-bound critical path, so the fix
  // plan shows the two as one.
  finding.fix = {"graph-launch:" + step_names_pattern(context.steps())};
  const double steps = context.step_count();
  const double mean_op_ns = stats.op_count > 0 ? stats.op_host_ns / stats.op_count : 0;
  const double mean_delay_ns = stats.delay_sum_ns / stats.launches;
  finding.metrics = {{"launches", stats.launches, "count"},
                     {"kernels", stats.kernels, "count"},
                     {"short_kernels", stats.short_kernels, "count"},
                     {"short_kernel_share", short_share, "ratio"},
                     {"shorter_than_launch", stats.shorter_than_launch, "count"},
                     {"launch_delays_over_cutoff", stats.late_launches, "count"},
                     {"launch_delay_mean_ns", mean_delay_ns, "ns"},
                     {"launch_delay_max_ns", stats.delay_max_ns, "ns"},
                     {"slow_launch_calls", stats.slow_launch_calls, "count"},
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
  const auto count = [](double value) { return std::to_string(static_cast<long>(value)); };
  const std::string slow_call =
      format_duration(static_cast<double>(context.options().slow_runtime_ns));
  finding.explanation =
      count(stats.short_kernels) + " of " + count(stats.launches) +
      " kernels, copies and memsets ran for less time than the call that launched them, a call "
      "of at most " +
      slow_call + " (" + count(stats.shorter_than_launch) + " with longer calls too); " +
      count(stats.late_launches) + " started over " +
      format_duration(static_cast<double>(context.options().launch_delay_ns)) +
      " after their launch call returned (mean delay " + format_duration(mean_delay_ns) + ", max " +
      format_duration(stats.delay_max_ns) + ") and " + count(stats.slow_launch_calls) +
      " launch calls took over " + slow_call +
      " (Holistic Trace Analysis' definitions and cut-offs). The host spends " +
      format_duration(mean_op_ns) + " per operator, " +
      format_duration(stats.op_count / steps * mean_op_ns) + " per step, and the GPU idles " +
      format_duration(time.gpu_idle_host_wait_ns) + " per step waiting for launches.";
  finding.recommendation =
      "Give the GPU more work per launch: larger batches, fused kernels, CUDA graphs to replay a "
      "step's launches at once, or less host work per operator.";
  return {finding};
}

extern constinit const Analysis kLaunchAnalysis{
    "launch", kFindingKinds, {}, &findings_of<&find_launch_bound>};

}  // namespace tscope::analyzer
