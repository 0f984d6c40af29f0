// The regression policy: threshold AND significance, medians only when the test cannot reach
// alpha, rates judged in their own direction, added/removed benchmarks, the geometric mean.

#include "tscope/regress/comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "results_builder.h"

namespace tscope::regress {
namespace {

using testing::results_of;

const Metric kRealTime = metric_named("real_time");

const std::vector<double> kBase{100, 101, 99, 102, 98, 100, 101, 99, 100};

std::vector<double> scaled(const std::vector<double>& values, double factor) {
  std::vector<double> result;
  for (const double value : values)
    result.push_back(value * factor);
  return result;
}

const BenchmarkComparison& only(const ComparisonReport& report) {
  EXPECT_EQ(report.benchmarks.size(), 1u);
  return report.benchmarks.front();
}

TEST(ComparisonTest, SignificantSlowdownBeyondThresholdRegresses) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_A", kBase}}),
                      results_of("new", {{"BM_A", scaled(kBase, 1.10)}}), kRealTime, {});
  const BenchmarkComparison& benchmark = only(report);
  ASSERT_TRUE(benchmark.u_test.has_value());
  EXPECT_LT(benchmark.u_test->p_value, 0.05);
  EXPECT_NEAR(benchmark.change, 0.10, 1e-12);
  EXPECT_EQ(benchmark.verdict, Verdict::kRegressed);
  EXPECT_TRUE(report.regressed());
}

TEST(ComparisonTest, SignificantSlowdownWithinThresholdIsUnchanged) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_A", kBase}}),
                      results_of("new", {{"BM_A", scaled(kBase, 1.03)}}), kRealTime, {});
  EXPECT_EQ(only(report).verdict, Verdict::kUnchanged);
  EXPECT_FALSE(report.regressed());
}

TEST(ComparisonTest, SlowerMedianThatTheTestCannotConfirmIsInconclusive) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_A", {100, 130, 90, 121, 95}}}),
                      results_of("new", {{"BM_A", {125, 92, 135, 98, 118}}}), kRealTime, {});
  const BenchmarkComparison& benchmark = only(report);
  EXPECT_GT(benchmark.slowdown, 0.05);
  ASSERT_TRUE(benchmark.u_test.has_value());
  EXPECT_GE(benchmark.u_test->p_value, 0.05);
  EXPECT_EQ(benchmark.verdict, Verdict::kInconclusive);
  EXPECT_FALSE(report.regressed());
}

TEST(ComparisonTest, TooFewRepetitionsJudgeMediansOnlyAndWarn) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_A", {100, 101, 99}}}),
                      results_of("new", {{"BM_A", {110, 111, 109}}}), kRealTime, {});
  const BenchmarkComparison& benchmark = only(report);
  EXPECT_FALSE(benchmark.u_test.has_value());
  EXPECT_EQ(benchmark.verdict, Verdict::kRegressed);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("at least 4 per side"), std::string::npos)
      << report.warnings[0];
}

TEST(ComparisonTest, SignificantSpeedupBeyondThresholdImproves) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_A", kBase}}),
                      results_of("new", {{"BM_A", scaled(kBase, 0.8)}}), kRealTime, {});
  EXPECT_EQ(only(report).verdict, Verdict::kImproved);
  EXPECT_FALSE(report.regressed());
}

TEST(ComparisonTest, FallingRateCounterIsASlowdown) {
  // Times 25% longer mean items_per_second 20% lower: a regression of 25% in time terms.
  const ComparisonReport report = compare_results(
      results_of("base", {{"BM_A", kBase}}), results_of("new", {{"BM_A", scaled(kBase, 1.25)}}),
      metric_named("items_per_second"), {});
  const BenchmarkComparison& benchmark = only(report);
  EXPECT_NEAR(benchmark.change, -0.20, 1e-12);
  EXPECT_NEAR(benchmark.slowdown, 0.25, 1e-12);
  EXPECT_EQ(benchmark.verdict, Verdict::kRegressed);
}

TEST(ComparisonTest, RisingRateCounterIsAnImprovement) {
  const ComparisonReport report = compare_results(results_of("base", {{"BM_A", kBase}}),
                                                  results_of("new", {{"BM_A", scaled(kBase, 0.5)}}),
                                                  metric_named("items_per_second"), {});
  EXPECT_EQ(only(report).verdict, Verdict::kImproved);
}

TEST(ComparisonTest, BenchmarkWithoutThresholdIsReportedButNeverRegresses) {
  ComparePolicy policy;
  policy.thresholds.push_back({NamePattern("BM_Raw*"), std::nullopt});
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_RawBlas", kBase}}),
                      results_of("new", {{"BM_RawBlas", scaled(kBase, 3.0)}}), kRealTime, policy);
  EXPECT_EQ(only(report).verdict, Verdict::kUngated);
  EXPECT_FALSE(report.regressed());
}

TEST(ComparisonTest, AddedAndRemovedBenchmarksAreListedNotCompared) {
  const ComparisonReport report =
      compare_results(results_of("base", {{"BM_Kept", kBase}, {"BM_Gone", kBase}}),
                      results_of("new", {{"BM_Kept", kBase}, {"BM_New", kBase}}), kRealTime, {});
  ASSERT_EQ(report.benchmarks.size(), 1u);
  EXPECT_EQ(report.benchmarks[0].name, "BM_Kept");
  EXPECT_EQ(report.removed, std::vector<std::string>{"BM_Gone"});
  EXPECT_EQ(report.added, std::vector<std::string>{"BM_New"});
  EXPECT_FALSE(report.regressed());
}

TEST(ComparisonTest, GeometricMeanOfTwiceSlowerAndTwiceFasterIsNoChange) {
  const ComparisonReport report = compare_results(
      results_of("base", {{"BM_A", kBase}, {"BM_B", kBase}}),
      results_of("new", {{"BM_A", scaled(kBase, 2.0)}, {"BM_B", scaled(kBase, 0.5)}}), kRealTime,
      {});
  ASSERT_TRUE(report.geomean_change.has_value());
  EXPECT_NEAR(*report.geomean_change, 0.0, 1e-12);
}

TEST(ComparisonTest, RelativeChangeFollowsComparePyForZeroBaselines) {
  EXPECT_DOUBLE_EQ(relative_change(0.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(relative_change(0.0, 2.0), 2.0);  // (2 - 0) / ((0 + 2) / 2)
  EXPECT_DOUBLE_EQ(relative_change(-4.0, -2.0), 0.5);
}

TEST(ComparisonTest, NormalizedBenchmarksCompareTheirRatioToTheReference) {
  // The whole machine is 50% slower in the new run, but the engine keeps its ratio to BLAS.
  ComparePolicy policy;
  policy.normalizers.emplace_back("BM_Engine(.*)", "BM_Blas$1");
  policy.thresholds.push_back({NamePattern("BM_Blas*"), std::nullopt});
  const ComparisonReport report = compare_results(
      results_of("base", {{"BM_Engine/64", scaled(kBase, 1.05)}, {"BM_Blas/64", kBase}}),
      results_of("new",
                 {{"BM_Engine/64", scaled(kBase, 1.05 * 1.5)}, {"BM_Blas/64", scaled(kBase, 1.5)}}),
      kRealTime, policy);
  ASSERT_EQ(report.benchmarks.size(), 2u);
  const BenchmarkComparison& engine = report.benchmarks[0];
  EXPECT_EQ(engine.reference, "BM_Blas/64");
  EXPECT_NEAR(engine.base_median, 1.05, 1e-12);
  EXPECT_NEAR(engine.new_median, 1.05, 1e-12);
  EXPECT_EQ(engine.verdict, Verdict::kUnchanged);
  EXPECT_EQ(report.benchmarks[1].verdict, Verdict::kUngated);
  EXPECT_FALSE(report.regressed());
}

}  // namespace
}  // namespace tscope::regress
