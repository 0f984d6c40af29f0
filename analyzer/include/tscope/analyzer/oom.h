#pragma once
// What filled memory: at an out-of-memory event (or at the peak when there is none) the live
// allocations grouped by owner and by category, allocated versus reserved, and what to change.
// An OOM instant may carry requested_bytes, limit_bytes and batch_size arguments, from which the
// largest batch that fits is estimated.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_memory_pressure(const AnalysisContext& context);

}  // namespace tscope::analyzer
