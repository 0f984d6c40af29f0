#pragma once
// Each instant of the selected steps on the main thread attributed to one op or GPU activity name,
// or to none: the partition behind the contributions of compare.h (its header says the rules).

#include <map>
#include <utility>

#include "trace_names.h"
#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/compare.h"

namespace tscope::analyzer {

struct StepTimeAttribution {
  // Summed over the selected steps; with not_attributed_ns, adds up to the steps' total time.
  std::map<std::pair<WorkKind, StringId>, double> by_name_ns;
  double not_attributed_ns = 0;
};

StepTimeAttribution attribute_step_time(const AnalysisContext& context);

}  // namespace tscope::analyzer
