#pragma once
// Filling a WhatIfResult step by step: the single-trace and the multi-rank what-if report their
// steps, means and replay errors the same way.

#include <vector>

#include "step_replay.h"
#include "tscope/analyzer/whatif.h"

namespace tscope::analyzer {

class WhatIfTally {
 public:
  explicit WhatIfTally(WhatIfResult& result) : result_(&result) {}
  // Adds a step (replayed or left out) in order.
  void add(const Step& step, const ReplayedStep& replayed);
  // The means and replay errors over the replayed steps.
  void finish();

 private:
  WhatIfResult* result_;
  std::vector<double> errors_;  // |replayed - measured| / measured, by replayed step
};

}  // namespace tscope::analyzer
