// Mann-Whitney U: midranks for the statistic, the exact distribution of U by the Mann-Whitney
// recurrence for small samples, the tie-corrected normal approximation for large ones.

#include "tscope/regress/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace tscope::regress {
namespace {

// scipy's rule for method='auto': the exact distribution while either sample is this small.
constexpr std::size_t kExactMaxSmallerSample = 8;
// The exact recurrence costs about (n1 * n2)^2 / 4 steps; past this larger-sample size the normal
// approximation is already accurate, so it is used instead to bound the work on untrusted input.
constexpr std::size_t kExactMaxLargerSample = 1000;

struct RankSummary {
  double x_rank_sum = 0.0;
  double tie_term = 0.0;  // sum over groups of tied values of (t^3 - t)
};

RankSummary rank_samples(std::span<const double> x, std::span<const double> y) {
  struct Value {
    double value;
    bool from_x;
  };
  std::vector<Value> pooled;
  pooled.reserve(x.size() + y.size());
  for (const double value : x)
    pooled.push_back({value, true});
  for (const double value : y)
    pooled.push_back({value, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const Value& a, const Value& b) { return a.value < b.value; });

  RankSummary summary;
  std::size_t first = 0;
  while (first < pooled.size()) {
    std::size_t last = first;
    while (last + 1 < pooled.size() && pooled[last + 1].value == pooled[first].value)
      ++last;
    const double tied = static_cast<double>(last - first + 1);
    const double midrank = (static_cast<double>(first + last) / 2.0) + 1.0;
    for (std::size_t i = first; i <= last; ++i) {
      if (pooled[i].from_x) summary.x_rank_sum += midrank;
    }
    summary.tie_term += tied * tied * tied - tied;
    first = last + 1;
  }
  return summary;
}

// Number of arrangements of m and n values giving each U in [0, m*n], from
// c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u). Counts are kept as doubles: they are only
// used as ratios and stay far below the double range for the sizes the exact path accepts.
std::vector<double> exact_u_counts(std::size_t m, std::size_t n) {
  // counts[i] is the distribution for (i, j) as j grows from 0 to n.
  std::vector<std::vector<double>> counts(m + 1, std::vector<double>{1.0});
  for (std::size_t j = 1; j <= n; ++j) {
    for (std::size_t i = 1; i <= m; ++i) {
      std::vector<double> next(i * j + 1, 0.0);
      const std::vector<double>& fewer_x = counts[i - 1];  // (i - 1, j), already advanced to j
      const std::vector<double>& fewer_y = counts[i];      // (i, j - 1)
      for (std::size_t u = 0; u < fewer_y.size(); ++u)
        next[u] += fewer_y[u];
      for (std::size_t u = 0; u < fewer_x.size(); ++u)
        next[u + j] += fewer_x[u];
      counts[i] = std::move(next);
    }
  }
  return counts[m];
}

double exact_two_sided_p(double u_statistic, std::size_t m, std::size_t n) {
  // The distribution of U is the same for (m, n) and (n, m); the smaller first keeps the table
  // small.
  const std::vector<double> counts = exact_u_counts(std::min(m, n), std::max(m, n));
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double mn = static_cast<double>(m * n);
  const auto larger_u = static_cast<std::size_t>(std::max(u_statistic, mn - u_statistic));
  const double upper_tail =
      std::accumulate(counts.begin() + static_cast<std::ptrdiff_t>(larger_u), counts.end(), 0.0);
  return std::min(1.0, 2.0 * upper_tail / total);
}

double asymptotic_two_sided_p(double u_statistic, std::size_t m, std::size_t n, double tie_term) {
  const double mn = static_cast<double>(m * n);
  const double total = static_cast<double>(m + n);
  const double variance = mn / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (variance <= 0.0) return 1.0;  // every value tied: no evidence of a difference
  const double larger_u = std::max(u_statistic, mn - u_statistic);
  const double z = (larger_u - mn / 2.0 - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

MannWhitneyMethod choose_method(std::size_t m, std::size_t n, bool has_ties) {
  if (has_ties || std::min(m, n) > kExactMaxSmallerSample ||
      std::max(m, n) > kExactMaxLargerSample) {
    return MannWhitneyMethod::kAsymptotic;
  }
  return MannWhitneyMethod::kExact;
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 MannWhitneyMethod method) {
  if (x.empty() || y.empty())
    throw std::invalid_argument("mann_whitney_u: both samples need at least one value");
  const std::size_t m = x.size();
  const std::size_t n = y.size();
  const RankSummary ranks = rank_samples(x, y);
  const double u_statistic = ranks.x_rank_sum - static_cast<double>(m * (m + 1)) / 2.0;
  if (method == MannWhitneyMethod::kAuto) method = choose_method(m, n, ranks.tie_term > 0.0);

  MannWhitneyResult result;
  result.u_statistic = u_statistic;
  result.method = method;
  result.p_value = method == MannWhitneyMethod::kExact
                       ? exact_two_sided_p(u_statistic, m, n)
                       : asymptotic_two_sided_p(u_statistic, m, n, ranks.tie_term);
  return result;
}

double smallest_attainable_p_value(std::size_t x_size, std::size_t y_size) {
  if (x_size == 0 || y_size == 0) return 1.0;
  if (choose_method(x_size, y_size, false) == MannWhitneyMethod::kExact) {
    return exact_two_sided_p(0.0, x_size, y_size);
  }
  return asymptotic_two_sided_p(0.0, x_size, y_size, 0.0);
}

}  // namespace tscope::regress
