#pragma once
// The two-sided Mann-Whitney U test, giving the same statistic and p-values as scipy's
// mannwhitneyu(x, y, alternative='two-sided', method=...) with use_continuity=True.

#include <cstddef>
#include <span>

namespace tscope::regress {

enum class MannWhitneyMethod {
  kAuto,        // exact when one sample has at most 8 values and there are no ties
  kExact,       // the exact null distribution of U; ties are not accounted for
  kAsymptotic,  // normal approximation with tie and continuity correction
};

struct MannWhitneyResult {
  double u_statistic = 0.0;  // U of the first sample: pairs (x, y) with x > y, ties count one half
  double p_value = 1.0;
  MannWhitneyMethod method = MannWhitneyMethod::kAuto;  // the method actually used
};

// Both samples need at least one value; throws std::invalid_argument otherwise.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 MannWhitneyMethod method = MannWhitneyMethod::kAuto);

// The smallest p-value the auto method can give for samples of these sizes (complete separation,
// no ties). When it is not below alpha, no outcome can be called significant.
double smallest_attainable_p_value(std::size_t x_size, std::size_t y_size);

}  // namespace tscope::regress
