#pragma once
// Medians and median absolute deviations: the robust centre and spread the cross-rank analysis
// uses, so one odd rank or collective does not move the figure.

#include <algorithm>
#include <cmath>
#include <vector>

namespace tscope::analyzer {

// Mean of the two middle values for an even count; 0 for none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2;
}

inline double median_absolute_deviation(const std::vector<double>& values, double centre) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double value : values)
    deviations.push_back(std::abs(value - centre));
  return median(std::move(deviations));
}

}  // namespace tscope::analyzer
