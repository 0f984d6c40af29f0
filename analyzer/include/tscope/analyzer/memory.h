#pragma once
// What filled memory: at an out-of-memory event the failing request (its size, the op and scope
// that asked, and whether it alone exceeds the limit, finds the memory held by live tensors, or
// finds free memory fragmented), the live allocations by owner and category, and the largest
// batch that fits, fitted from the steps of the trace; at the peak when there is no OOM, with
// each device's headroom when the trace names its memory.

#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_memory_pressure(const AnalysisContext& context);

// Whether an instant's name says out of memory ("out of memory" or "OOM", in any case).
bool names_out_of_memory(std::string_view name);

}  // namespace tscope::analyzer
