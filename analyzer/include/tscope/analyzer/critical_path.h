#pragma once
// The critical path of each step through the host-GPU dependency graph: host work in order on
// each thread, launch -> GPU activity, stream order, synchronizations and cross-stream event waits.
// Walking back from a step's end along the dependency that was satisfied last gives the chain of
// work that set the step's length: what it is made of, which ops and kernels would shorten the
// step if faster, and how much the rest could slip (their slack) before they would.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

// What a stretch of the path is.
enum class PathPart : std::uint8_t {
  kHostCompute,  // operators and host code between them
  kInputWait,    // the host waiting for a batch
  kLaunch,       // launch calls and the delay from a launch to its GPU activity starting
  kRuntime,      // other CUDA/HIP API calls (allocation, attribute queries, ...)
  kSync,         // synchronizing calls, and their return after the GPU work they waited for
  kKernel,       // GPU kernels (communication kernels too)
  kCopy,         // GPU copies and memsets
  kGpuWait,      // a stream waiting for its previous activity or another stream's event
  kIdle,         // a host thread between top-level spans, or nothing recorded
};
inline constexpr std::size_t kPathPartCount = 9;
std::string_view to_string(PathPart part);

using PathParts = std::array<double, kPathPartCount>;

// One contiguous stretch of a step's path, attributed to the event that filled it (none for
// idle stretches).
struct PathSegment {
  trace::TimeNs start = 0;
  trace::TimeNs end = 0;
  PathPart part = PathPart::kIdle;
  bool has_event = false;
  trace::EventRef event;
};

// An op or kernel name on the path: its time there per mean step.
struct PathEntry {
  std::string name;
  PathPart part = PathPart::kIdle;
  double path_ns = 0;  // per mean step
  std::size_t segments = 0;
};

// An op or kernel name that is never on the path: its time, and how much the least slack of its
// events allows it to grow before the step would.
struct SlackEntry {
  std::string name;
  PathPart part = PathPart::kIdle;
  double total_ns = 0;  // per mean step
  std::size_t count = 0;
  double min_slack_ns = 0;
  trace::EventRef least_slack;
};

struct StepPath {
  std::string name;
  PathParts parts{};  // sums to the step's length
};

struct CriticalPath {
  double step_ns = 0;                // mean step
  PathParts parts{};                 // per mean step; sums to step_ns
  std::vector<PathEntry> on_path;    // most path time first, top_count of them
  std::vector<SlackEntry> off_path;  // most time first, top_count of them
  std::vector<StepPath> steps;
  // Every step's path in time order, for the viewer to highlight (kept only with
  // AnalysisOptions::keep_path_segments).
  std::vector<PathSegment> segments;
  // Summed over the steps' graphs (one per step; a span across a boundary is in both).
  std::size_t graph_nodes = 0;
  std::size_t graph_edges = 0;

  double share(PathPart part) const {
    return step_ns > 0 ? parts[static_cast<std::size_t>(part)] / step_ns : 0;
  }
};

CriticalPath compute_critical_path(const AnalysisContext& context);

// Kinds `critical_path_host_bound` (a GPU trace whose path runs mostly through host ops and
// launches) and `critical_path_dominated` (one op or kernel is a large share of the path).
inline constexpr std::string_view kCriticalPathHostBound = "critical_path_host_bound";
inline constexpr std::string_view kCriticalPathDominated = "critical_path_dominated";
inline constexpr std::array kCriticalPathKinds{kCriticalPathHostBound, kCriticalPathDominated};
std::vector<Finding> find_critical_path_problems(const AnalysisContext& context,
                                                 const CriticalPath& path);

}  // namespace tscope::analyzer
