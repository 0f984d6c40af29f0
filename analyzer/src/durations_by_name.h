#pragma once
// The durations of one category's spans inside the selected steps, grouped by name: an op in the
// step its start falls in, a GPU activity in context.step_of_gpu_activity's. What `analyze`'s op
// breakdown and the comparison of two runs both total.

#include <vector>

#include "trace_names.h"
#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

struct DurationsByName {
  std::vector<StringId> names;                 // in the order each was first met
  std::vector<std::vector<TimeNs>> durations;  // per name, in trace order
};

DurationsByName durations_by_name(const AnalysisContext& context, Category category);

}  // namespace tscope::analyzer
