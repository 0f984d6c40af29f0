#include "linear_fit.h"

namespace tscope::analyzer {

LinearFit fit_line(const std::vector<double>& samples) {
  LinearFit fit;
  const auto n = static_cast<double>(samples.size());
  if (samples.size() < 2) {
    fit.intercept = samples.empty() ? 0 : samples.front();
    return fit;
  }
  double sum_x = 0;
  double sum_y = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    sum_x += static_cast<double>(i);
    sum_y += samples[i];
  }
  const double mean_x = sum_x / n;
  const double mean_y = sum_y / n;
  double sxx = 0;
  double sxy = 0;
  double syy = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double dx = static_cast<double>(i) - mean_x;
    const double dy = samples[i] - mean_y;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  fit.r_squared = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
  return fit;
}

}  // namespace tscope::analyzer
