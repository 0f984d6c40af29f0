#pragma once
// Nsight Systems-style expert rules on copies and synchronization: copies from pageable memory,
// copies the host waits for, synchronizations after which the GPU sits idle, and long GPU gaps.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_copy_and_sync_problems(const AnalysisContext& context);

}  // namespace tscope::analyzer
