#pragma once
// Launch- and host-bound GPU work with Holistic Trace Analysis' cut-offs: kernels shorter than
// their launch call, launch delays over 100 µs, runtime calls over 50 µs, and GPU idle because
// the host did not launch work fast enough.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_launch_bound(const AnalysisContext& context);

}  // namespace tscope::analyzer
