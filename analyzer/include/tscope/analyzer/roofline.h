#pragma once
// Roofline per operator: the FLOP/s and bytes/s each op achieved (from the flops and bytes our
// engine records, or those its shapes imply) against the peak of the device it ran on, and the
// ops whose time is furthest above the time the device's roofline allows, as ranked findings.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_roofline_gaps(const AnalysisContext& context);

}  // namespace tscope::analyzer
