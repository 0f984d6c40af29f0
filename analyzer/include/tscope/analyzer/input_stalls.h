#pragma once
// I/O-bound steps: the share of step time the main thread waits for data plus host-to-device
// copies that no compute hides, rated with the TensorFlow profiler's thresholds, and the numbers
// that fix it (loader workers, pinned memory, prefetch depth, copies on a side stream).

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_input_stalls(const AnalysisContext& context);

}  // namespace tscope::analyzer
