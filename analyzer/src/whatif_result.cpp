#include "whatif_result.h"

#include <algorithm>
#include <cmath>

#include "order_statistics.h"

namespace tscope::analyzer {

void WhatIfTally::add(const Step& step, const ReplayedStep& replayed) {
  WhatIfResult& result = *result_;
  result.steps.push_back({step.name, replayed.measured_ns, replayed.predicted_ns,
                          replayed.replayed_ns, replayed.replayed, replayed.why_not});
  if (!replayed.replayed) return;
  ++result.replayed_steps;
  result.measured_mean_ns += replayed.measured_ns;
  result.predicted_mean_ns += replayed.predicted_ns;
  if (replayed.measured_ns > 0)
    errors_.push_back(std::abs(replayed.replayed_ns - replayed.measured_ns) / replayed.measured_ns);
}

void WhatIfTally::finish() {
  WhatIfResult& result = *result_;
  if (result.replayed_steps > 0) {
    result.measured_mean_ns /= static_cast<double>(result.replayed_steps);
    result.predicted_mean_ns /= static_cast<double>(result.replayed_steps);
  }
  if (!errors_.empty()) {
    result.replay_error_max = *std::max_element(errors_.begin(), errors_.end());
    result.replay_error_median = median(std::move(errors_));
  }
}

}  // namespace tscope::analyzer
