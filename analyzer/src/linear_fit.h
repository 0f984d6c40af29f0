#pragma once
// Least-squares line through equally spaced samples (x = 0, 1, 2, ...): the growth per step of a
// series and how well a line explains it.

#include <vector>

namespace tscope::analyzer {

struct LinearFit {
  double slope = 0;
  double intercept = 0;
  double r_squared = 0;  // 1 for a perfect line; 0 when the series is flat or has < 2 points
};

LinearFit fit_line(const std::vector<double>& samples);

}  // namespace tscope::analyzer
