// The compare.py fixture pair of Google Benchmark (tools/gbench/Inputs/test1_run1.json and
// test1_run2.json, copied to ../shared/data/traces/gbench). Expected numbers come from
// compare.py's own unit test for this pair (tools/gbench/report.py, TestReportDifference:
// "Time" and "CPU" change columns and the OVERALL_GEOMEAN row), re-derived with a short Python
// script over the two files. compare.py colours a change above +5% as worse and below -7% as
// better; with the default 5% threshold our verdicts must agree on every benchmark.
//
// Each benchmark is a single run, so the U test cannot apply: only the changes and the verdicts
// from the medians are compared. One deliberate difference: compare.py drops
// BM_DifferentTimeUnit because its two entries use different time units; we convert units, so
// it is compared (1 s -> 1 ns, -100%). compare.py's geometric mean already converts, over all
// non-aggregate entries, so both geometric means agree.

#include <gtest/gtest.h>

#include <map>

#include "test_data.h"
#include "tscope/regress/comparison.h"
#include "tscope/regress/gbench_json_reader.h"

namespace tscope::regress {
namespace {

struct Expected {
  double change;
  Verdict verdict;
};

// compare.py's "Time" and "CPU" columns for each benchmark of the pair.
struct ComparePyRow {
  const char* name;
  Expected real_time;
  Expected cpu_time;
};

constexpr ComparePyRow kComparePy[] = {
    {"BM_SameTimes", {0.0, Verdict::kUnchanged}, {0.0, Verdict::kUnchanged}},
    {"BM_2xFaster", {-0.5, Verdict::kImproved}, {-0.5, Verdict::kImproved}},
    {"BM_2xSlower", {1.0, Verdict::kRegressed}, {1.0, Verdict::kRegressed}},
    {"BM_1PercentFaster", {-0.01, Verdict::kUnchanged}, {-0.01, Verdict::kUnchanged}},
    {"BM_1PercentSlower", {0.01, Verdict::kUnchanged}, {0.01, Verdict::kUnchanged}},
    {"BM_10PercentFaster", {-0.1, Verdict::kImproved}, {-0.1, Verdict::kImproved}},
    {"BM_10PercentSlower", {0.1, Verdict::kRegressed}, {0.1, Verdict::kRegressed}},
    {"BM_100xSlower", {99.0, Verdict::kRegressed}, {99.0, Verdict::kRegressed}},
    {"BM_100xFaster", {-0.99, Verdict::kImproved}, {-0.99, Verdict::kImproved}},
    {"BM_10PercentCPUToTime", {0.1, Verdict::kRegressed}, {-0.1, Verdict::kImproved}},
    {"BM_ThirdFaster", {-0.3333, Verdict::kImproved}, {-0.3334, Verdict::kImproved}},
    {"BM_NotBadTimeUnit", {-0.9, Verdict::kImproved}, {0.2, Verdict::kRegressed}},
    {"BM_DifferentTimeUnit", {-1.0, Verdict::kImproved}, {-1.0, Verdict::kImproved}},
    {"BM_hasLabel", {0.0, Verdict::kUnchanged}, {0.0, Verdict::kUnchanged}},
};

class ComparePyFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_path_ =
        tscope::testing::shared_data_path("traces/gbench/google_benchmark_compare_test1_run1.json");
    new_path_ =
        tscope::testing::shared_data_path("traces/gbench/google_benchmark_compare_test1_run2.json");
    TSCOPE_REQUIRE_FILE(base_path_);
    TSCOPE_REQUIRE_FILE(new_path_);
  }

  ComparisonReport compare(const std::string& metric) const {
    return compare_results(read_gbench_json(base_path_), read_gbench_json(new_path_),
                           metric_named(metric), {});
  }

  // Every benchmark of `report` against the column `metric` of kComparePy.
  static void expect_changes(const ComparisonReport& report, Expected ComparePyRow::*metric) {
    std::map<std::string, Expected> expected;
    for (const ComparePyRow& row : kComparePy)
      expected.emplace(row.name, row.*metric);
    ASSERT_EQ(report.benchmarks.size(), expected.size());
    for (const BenchmarkComparison& benchmark : report.benchmarks) {
      const auto found = expected.find(benchmark.name);
      ASSERT_NE(found, expected.end()) << benchmark.name;
      // compare.py prints four decimals.
      EXPECT_NEAR(benchmark.change, found->second.change, 5e-5) << benchmark.name;
      EXPECT_EQ(benchmark.verdict, found->second.verdict) << benchmark.name;
    }
  }

  std::filesystem::path base_path_;
  std::filesystem::path new_path_;
};

TEST_F(ComparePyFixtureTest, RealTimeChangesAndVerdictsMatchComparePy) {
  expect_changes(compare("real_time"), &ComparePyRow::real_time);
}

TEST_F(ComparePyFixtureTest, CpuTimeChangesAndVerdictsMatchComparePy) {
  expect_changes(compare("cpu_time"), &ComparePyRow::cpu_time);
}

TEST_F(ComparePyFixtureTest, GeometricMeanMatchesComparePyOverallGeomean) {
  const ComparisonReport real_time = compare("real_time");
  ASSERT_TRUE(real_time.geomean_change.has_value());
  EXPECT_NEAR(*real_time.geomean_change, -0.8113, 5e-5);
  const ComparisonReport cpu_time = compare("cpu_time");
  ASSERT_TRUE(cpu_time.geomean_change.has_value());
  EXPECT_NEAR(*cpu_time.geomean_change, -0.7779, 5e-5);
}

TEST_F(ComparePyFixtureTest, SingleRunsSkipTheUTestAndSayWhy) {
  const ComparisonReport report = compare("real_time");
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    EXPECT_FALSE(benchmark.u_test.has_value()) << benchmark.name;
  }
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("14 of 14 benchmarks have too few repetitions"),
            std::string::npos);
}

TEST_F(ComparePyFixtureTest, ComplexityEntriesAreNotBenchmarks) {
  // MyComplexityTest_BigO and _RMS carry coefficients, not times.
  const ComparisonReport report = compare("real_time");
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    EXPECT_EQ(benchmark.name.find("MyComplexityTest"), std::string::npos);
  }
  EXPECT_TRUE(report.added.empty());
  EXPECT_TRUE(report.removed.empty());
}

}  // namespace
}  // namespace tscope::regress
