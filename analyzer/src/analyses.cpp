// The registry: every analysis `tscope analyze` knows, in the order they run and their sections
// appear. Each entry is defined beside its analysis.

#include <algorithm>
#include <array>

#include "tscope/analyzer/analysis.h"

namespace tscope::analyzer {

extern const Analysis kTimeAnalysis;
extern const Analysis kInputAnalysis;
extern const Analysis kCopiesAnalysis;
extern const Analysis kFusionAnalysis;
extern const Analysis kMemoryAnalysis;
extern const Analysis kLeaksAnalysis;
extern const Analysis kLaunchAnalysis;
extern const Analysis kRooflineAnalysis;
extern const Analysis kTensorCoresAnalysis;
extern const Analysis kQueueAnalysis;
extern const Analysis kStreamsAnalysis;
extern const Analysis kCriticalPathAnalysis;
extern const Analysis kBreakdownAnalysis;

namespace {

constexpr std::array kAnalyses{
    &kTimeAnalysis,          // where the mean step goes
    &kInputAnalysis,         // steps waiting for data
    &kCopiesAnalysis,        // pageable and synchronous copies, syncs, GPU gaps
    &kFusionAnalysis,        // chains of small kernels
    &kMemoryAnalysis,        // peaks and out-of-memory causes
    &kLeaksAnalysis,         // memory never freed
    &kLaunchAnalysis,        // launch- and host-bound steps
    &kRooflineAnalysis,      // ops far below the roofline
    &kTensorCoresAnalysis,   // matrix work off the Tensor Cores
    &kQueueAnalysis,         // hosts blocked on a full launch queue
    &kStreamsAnalysis,       // idle time and queue per stream
    &kCriticalPathAnalysis,  // each step's critical path
    &kBreakdownAnalysis,     // top operators and kernels
};

}  // namespace

std::span<const Analysis* const> analyses() {
  return kAnalyses;
}

const Analysis* find_analysis(std::string_view name) {
  const auto found = std::find_if(kAnalyses.begin(), kAnalyses.end(),
                                  [&](const Analysis* analysis) { return analysis->name == name; });
  return found == kAnalyses.end() ? nullptr : *found;
}

}  // namespace tscope::analyzer
