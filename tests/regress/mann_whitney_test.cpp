// The U test against tabulated critical values and against p-values computed independently in
// Python: exact ones by enumerating every assignment of the pooled ranks to the two samples
// (itertools.combinations), asymptotic ones from the normal formula with tie and continuity
// correction, which is what scipy.stats.mannwhitneyu(alternative='two-sided') computes.

#include "tscope/regress/mann_whitney.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tscope/regress/comparison.h"

namespace tscope::regress {
namespace {

struct TwoSamples {
  std::vector<double> x;
  std::vector<double> y;
};

// Samples of sizes m and n without ties whose U statistic is exactly u: y = 1..n, and each x
// sits just above as many y values as it should beat.
TwoSamples samples_with_u(std::size_t m, std::size_t n, std::size_t u) {
  TwoSamples samples;
  for (std::size_t j = 1; j <= n; ++j)
    samples.y.push_back(static_cast<double>(j));
  std::size_t remaining = u;
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t beaten = std::min(n, remaining);
    remaining -= beaten;
    samples.x.push_back(static_cast<double>(beaten) + 0.1 + 0.01 * static_cast<double>(i));
  }
  return samples;
}

TEST(MannWhitneyTest, ExactPValueMatchesFullEnumerationForFiveVersusSix) {
  const std::vector<double> x{1.1, 2.3, 3.0, 4.2, 5.5};
  const std::vector<double> y{3.5, 6.1, 7.2, 8.8, 9.0, 10.4};
  const MannWhitneyResult result = mann_whitney_u(x, y);
  EXPECT_EQ(result.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(result.u_statistic, 2.0);
  EXPECT_NEAR(result.p_value, 0.017316017316017316, 1e-12);  // 2 * 4 / 462 by enumeration
}

TEST(MannWhitneyTest, ExactPValueMatchesFullEnumerationForUnequalSizes) {
  const std::vector<double> x{12.0, 15.5, 9.1, 14.2, 13.3, 11.8, 16.4};
  const std::vector<double> y{10.2, 8.7, 9.9, 11.1};
  const MannWhitneyResult result = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(result.u_statistic, 25.0);
  EXPECT_NEAR(result.p_value, 0.04242424242424243, 1e-12);
}

TEST(MannWhitneyTest, CompletelySeparatedThreeVersusThreeGivesTwoOverTwenty) {
  const MannWhitneyResult result =
      mann_whitney_u(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  EXPECT_DOUBLE_EQ(result.u_statistic, 0.0);
  EXPECT_DOUBLE_EQ(result.p_value, 0.1);
}

// Two-sided critical values of U at alpha = 0.05 from the standard Mann-Whitney table: the
// difference is significant at U <= critical and not at critical + 1.
struct CriticalValue {
  std::size_t m;
  std::size_t n;
  std::size_t critical_u;
  double p_at_critical;  // exact p from the Python enumeration
};

class MannWhitneyCriticalValueTest : public ::testing::TestWithParam<CriticalValue> {};

TEST_P(MannWhitneyCriticalValueTest, ExactTestIsSignificantExactlyUpToTheTabulatedValue) {
  const CriticalValue row = GetParam();
  const TwoSamples at = samples_with_u(row.m, row.n, row.critical_u);
  const TwoSamples above = samples_with_u(row.m, row.n, row.critical_u + 1);
  const MannWhitneyResult significant = mann_whitney_u(at.x, at.y);
  EXPECT_EQ(significant.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(significant.u_statistic, static_cast<double>(row.critical_u));
  EXPECT_NEAR(significant.p_value, row.p_at_critical, 1e-12);
  EXPECT_LT(significant.p_value, 0.05);
  EXPECT_GT(mann_whitney_u(above.x, above.y).p_value, 0.05);
}

INSTANTIATE_TEST_SUITE_P(TabulatedTwoSided005, MannWhitneyCriticalValueTest,
                         ::testing::Values(CriticalValue{4, 4, 0, 0.02857142857142857},
                                           CriticalValue{3, 5, 0, 0.03571428571428571},
                                           CriticalValue{5, 5, 2, 0.031746031746031744},
                                           CriticalValue{6, 6, 5, 0.04112554112554113},
                                           CriticalValue{7, 7, 8, 0.03787878787878788},
                                           CriticalValue{8, 8, 13, 0.049883449883449886},
                                           CriticalValue{5, 10, 8, 0.03996003996003996}));

TEST(MannWhitneyTest, LargeSamplesUseTheNormalApproximationAtTheTabulatedCriticalValue) {
  // Table: n1 = n2 = 10 -> 23, n1 = n2 = 20 -> 127. p-values from the Python normal formula.
  const TwoSamples ten = samples_with_u(10, 10, 23);
  const MannWhitneyResult at_ten = mann_whitney_u(ten.x, ten.y);
  EXPECT_EQ(at_ten.method, MannWhitneyMethod::kAsymptotic);
  EXPECT_NEAR(at_ten.p_value, 0.04515456962427905, 1e-12);
  const TwoSamples ten_above = samples_with_u(10, 10, 24);
  EXPECT_NEAR(mann_whitney_u(ten_above.x, ten_above.y).p_value, 0.05390255716938722, 1e-12);

  const TwoSamples twenty = samples_with_u(20, 20, 127);
  EXPECT_NEAR(mann_whitney_u(twenty.x, twenty.y).p_value, 0.049863690210540525, 1e-12);
  const TwoSamples twenty_above = samples_with_u(20, 20, 128);
  EXPECT_NEAR(mann_whitney_u(twenty_above.x, twenty_above.y).p_value, 0.05310312455977325, 1e-12);
}

TEST(MannWhitneyTest, TiesSwitchToTheTieCorrectedNormalApproximation) {
  const std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5, 6, 7};
  const std::vector<double> y{3, 4, 4, 5, 6, 7, 8, 8, 9, 10};
  const MannWhitneyResult result = mann_whitney_u(x, y);
  EXPECT_EQ(result.method, MannWhitneyMethod::kAsymptotic);
  EXPECT_DOUBLE_EQ(result.u_statistic, 17.0);
  EXPECT_NEAR(result.p_value, 0.013341994104348623, 1e-12);
}

TEST(MannWhitneyTest, TiesInSmallSamplesCountOneHalfInTheStatistic) {
  const MannWhitneyResult result =
      mann_whitney_u(std::vector<double>{5.0, 5.0, 6.0}, std::vector<double>{5.0, 7.0, 7.0, 8.0});
  EXPECT_EQ(result.method, MannWhitneyMethod::kAsymptotic);
  EXPECT_DOUBLE_EQ(result.u_statistic, 2.0);
  EXPECT_NEAR(result.p_value, 0.1947421728395917, 1e-12);
}

TEST(MannWhitneyTest, AllValuesTiedGivesPValueOne) {
  const MannWhitneyResult result =
      mann_whitney_u(std::vector<double>{4, 4, 4}, std::vector<double>{4, 4});
  EXPECT_DOUBLE_EQ(result.p_value, 1.0);
}

TEST(MannWhitneyTest, SwappingTheSamplesKeepsTheTwoSidedPValue) {
  const std::vector<double> x{12.0, 15.5, 9.1, 14.2, 13.3, 11.8, 16.4};
  const std::vector<double> y{10.2, 8.7, 9.9, 11.1};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, y).p_value, mann_whitney_u(y, x).p_value);
}

TEST(MannWhitneyTest, EmptySampleIsRejected) {
  EXPECT_THROW(mann_whitney_u(std::vector<double>{}, std::vector<double>{1.0}),
               std::invalid_argument);
}

TEST(MannWhitneyTest, SmallestAttainablePValueIsTwoOverTheNumberOfArrangements) {
  EXPECT_DOUBLE_EQ(smallest_attainable_p_value(3, 3), 2.0 / 20.0);
  EXPECT_DOUBLE_EQ(smallest_attainable_p_value(4, 4), 2.0 / 70.0);
  EXPECT_DOUBLE_EQ(smallest_attainable_p_value(1, 1), 1.0);
}

TEST(MannWhitneyTest, FourRepetitionsPerSideAreTheMinimumToReachFivePercent) {
  EXPECT_EQ(minimum_repetitions(0.05), 4u);
  EXPECT_EQ(minimum_repetitions(0.01), 5u);  // 2 / C(10, 5) = 0.0079
}

}  // namespace
}  // namespace tscope::regress
