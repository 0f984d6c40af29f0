#pragma once
// Medians, nearest-rank percentiles and median absolute deviations: the robust centre and spread
// the cross-rank analysis uses, so one odd rank or collective does not move the figure; and the
// binomial tail that tells a rank that is last by habit from one that is last by chance.

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

// Nearest-rank percentile of `values` (fraction in (0, 1]); 0 for none. Reorders `values`: a
// selection, not a sort, so that a percentile of many durations costs linear time.
template <typename T>
double nearest_rank(std::vector<T>& values, double fraction) {
  if (values.empty()) return 0;
  const auto rank =
      static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size())));
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
  std::nth_element(values.begin(), nth, values.end());
  return static_cast<double>(*nth);
}

// P(X >= successes) for X ~ Binomial(trials, probability), summed in logs so that thousands of
// trials neither overflow nor underflow.
inline double binomial_upper_tail(std::size_t successes, std::size_t trials, double probability) {
  if (successes == 0) return 1;
  if (successes > trials) return 0;
  const double n = static_cast<double>(trials);
  double tail = 0;
  for (std::size_t k = successes; k <= trials; ++k) {
    const double x = static_cast<double>(k);
    tail += std::exp(std::lgamma(n + 1) - std::lgamma(x + 1) - std::lgamma(n - x + 1) +
                     x * std::log(probability) + (n - x) * std::log1p(-probability));
  }
  return std::min(tail, 1.0);
}

}  // namespace tscope::analyzer
