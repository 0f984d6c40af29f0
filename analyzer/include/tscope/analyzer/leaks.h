#pragma once
// Memory leaks: live bytes at step boundaries that keep growing (a least-squares fit over steps,
// by allocation site), told apart from caches that fill up and then plateau; and what the steps
// allocated that is still alive when the trace ends.

#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"

namespace tscope::analyzer {

std::vector<Finding> find_leaks(const AnalysisContext& context);

}  // namespace tscope::analyzer
