// Findings from the critical path of a GPU trace: a path that runs through host ops and launches
// while the GPU has time to spare, and one op or kernel that makes up a large share of the path.

#include <algorithm>

#include "tscope/analyzer/critical_path.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

// A path this much on the host is host-bound; one name this much of the path dominates it.
constexpr double kHostBoundShare = 0.5;
constexpr double kDominantShare = 0.25;

Finding host_bound(const AnalysisContext& context, const CriticalPath& path) {
  const double host_ns = path.parts[static_cast<std::size_t>(PathPart::kHostCompute)] +
                         path.parts[static_cast<std::size_t>(PathPart::kLaunch)] +
                         path.parts[static_cast<std::size_t>(PathPart::kRuntime)];
  const double share = host_ns / path.step_ns;
  const TimeBreakdown& time = context.time_breakdown();
  const double gpu_busy_ns =
      time.gpu_compute_ns + time.gpu_communication_ns + time.gpu_copy_ns + time.gpu_memset_ns;
  Finding finding;
  finding.kind = kCriticalPathHostBound;
  finding.severity = severity_for_share(share);
  finding.title = "The critical path runs through the host: " + format_percent(share) +
                  " of the step is host ops, launches and API calls on it";
  finding.cost = {host_ns, share, 0};
  // However fast the host gets, the step cannot end before the GPU's own work does.
  finding.estimated_gain_ns_per_step = std::max(0.0, std::min(host_ns, path.step_ns - gpu_busy_ns));
  finding.explanation =
      "Walking back from each step's end along the dependency each event waited for last, " +
      format_duration(host_ns) + " of the mean step (" + format_duration(path.step_ns) +
      ") is host work: operators " +
      format_duration(path.parts[static_cast<std::size_t>(PathPart::kHostCompute)]) +
      ", launch calls and launch delay " +
      format_duration(path.parts[static_cast<std::size_t>(PathPart::kLaunch)]) +
      ", other API calls " +
      format_duration(path.parts[static_cast<std::size_t>(PathPart::kRuntime)]) +
      ", while GPU kernels and copies on the path take " +
      format_duration(path.parts[static_cast<std::size_t>(PathPart::kKernel)] +
                      path.parts[static_cast<std::size_t>(PathPart::kCopy)]) +
      ". The GPU waits for the host to queue work.";
  finding.recommendation =
      "Queue work faster than the GPU runs it: capture the step in a CUDA graph "
      "(torch.cuda.graphs, torch.compile mode=\"reduce-overhead\"), fuse small kernels, move host "
      "work (data preparation, logging, .item() calls) off the step's path, or raise the batch "
      "size so each launch carries more work.";
  // The whole step captured as a CUDA graph: the host's work on the path goes, its waits stay.
  finding.fix = {"graph-launch:" + step_names_pattern(context.steps())};
  finding.metrics = {{"host_path_ns", host_ns, "ns"},
                     {"host_path_share", share, "ratio"},
                     {"gpu_busy_ns", gpu_busy_ns, "ns"}};
  return finding;
}

Finding dominated(const CriticalPath& path, const PathEntry& entry) {
  const double share = entry.path_ns / path.step_ns;
  const bool gpu = entry.part == PathPart::kKernel || entry.part == PathPart::kCopy;
  Finding finding;
  finding.kind = kCriticalPathDominated;
  // A large share of the path is where speed-ups pay, not a fault in itself: at most medium.
  finding.severity = std::min(severity_for_share(share), Severity::kMedium);
  finding.title = std::string(gpu ? "Kernel " : "Op ") + "'" + entry.name + "' is " +
                  format_percent(share) + " of the critical path";
  finding.cost = {entry.path_ns, share, 0};
  finding.explanation = "'" + entry.name + "' (" + std::string(to_string(entry.part)) + ") fills " +
                        format_duration(entry.path_ns) + " of the mean step's critical path (" +
                        std::to_string(entry.segments) +
                        " stretches over all steps). Every ns it saves there shortens the step, "
                        "until another chain becomes the longest.";
  finding.recommendation =
      gpu ? "Make this kernel faster first (see the roofline and Tensor Core findings for it): a "
            "better algorithm or library call, a lower precision, or fusing it with its "
            "neighbours."
          : "Make this op faster first, or take it off the step's path by overlapping it with GPU "
            "work (asynchronous copies, a separate stream or thread).";
  finding.metrics = {{"path_ns", entry.path_ns, "ns"}, {"path_share", share, "ratio"}};
  return finding;
}

}  // namespace

std::vector<Finding> find_critical_path_problems(const AnalysisContext& context,
                                                 const CriticalPath& path) {
  std::vector<Finding> findings;
  // On a host-only trace the path is all host by nature: nothing to act on.
  if (!context.has_gpu() || path.step_ns <= 0) return findings;
  const double host_share = path.share(PathPart::kHostCompute) + path.share(PathPart::kLaunch) +
                            path.share(PathPart::kRuntime);
  if (host_share >= kHostBoundShare) findings.push_back(host_bound(context, path));
  for (const PathEntry& entry : path.on_path) {
    if (entry.path_ns / path.step_ns < kDominantShare) break;
    findings.push_back(dominated(path, entry));
  }
  return findings;
}

}  // namespace tscope::analyzer
