#pragma once
// Fusion opportunities: recurring chains of memory-bound ops or kernels that each consume the
// previous one's output, with the time a single fused kernel would save per step.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_fusion_opportunities(const AnalysisContext& context);

}  // namespace tscope::analyzer
