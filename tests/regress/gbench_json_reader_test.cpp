// Reading Google Benchmark JSON of every vintage: raw repetitions, aggregates only, outputs
// from before run_type/run_name existed, mixed time units, counters, and broken files.

#include "tscope/regress/gbench_json_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

// Shape of `--benchmark_repetitions=3 --benchmark_format=json` from Google Benchmark 1.7.
constexpr const char* kRepetitionsJson = R"({
  "context": {"library_build_type": "release"},
  "benchmarks": [
    {"name": "BM_Add/64", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_Add/64",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 0, "threads": 1, "iterations": 1000,
     "real_time": 1.5, "cpu_time": 1.4, "time_unit": "us", "items_per_second": 4.0e7},
    {"name": "BM_Add/64", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_Add/64",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 1, "threads": 1, "iterations": 1000,
     "real_time": 1.7, "cpu_time": 1.6, "time_unit": "us", "items_per_second": 3.8e7},
    {"name": "BM_Add/64", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_Add/64",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 2, "threads": 1, "iterations": 1000,
     "real_time": 1.6, "cpu_time": 1.5, "time_unit": "us", "items_per_second": 3.9e7},
    {"name": "BM_Add/64_mean", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_Add/64",
     "run_type": "aggregate", "repetitions": 3, "threads": 1, "aggregate_name": "mean", "aggregate_unit": "time",
     "iterations": 3, "real_time": 1.6, "cpu_time": 1.5, "time_unit": "us"},
    {"name": "BM_Add/64_cv", "family_index": 0, "per_family_instance_index": 0, "run_name": "BM_Add/64",
     "run_type": "aggregate", "repetitions": 3, "threads": 1, "aggregate_name": "cv", "aggregate_unit": "percentage",
     "iterations": 3, "real_time": 0.06, "cpu_time": 0.06, "time_unit": "us"}
  ]
})";

TEST(GbenchJsonReaderTest, ConvertsTimesToNanoseconds) {
  const BenchmarkResults results = parse_gbench_json(kRepetitionsJson, "reps.json");
  ASSERT_EQ(results.runs.size(), 5u);
  EXPECT_DOUBLE_EQ(results.runs[0].real_time_ns, 1500.0);
  EXPECT_DOUBLE_EQ(results.runs[0].cpu_time_ns, 1400.0);
}

TEST(GbenchJsonReaderTest, SeparatesRepetitionsFromAggregates) {
  const BenchmarkResults results = parse_gbench_json(kRepetitionsJson, "reps.json");
  EXPECT_EQ(results.runs[2].run_type, RunType::kIteration);
  EXPECT_EQ(results.runs[3].run_type, RunType::kAggregate);
  EXPECT_EQ(results.runs[3].aggregate_name, "mean");
  EXPECT_EQ(results.runs[3].run_name, "BM_Add/64");
}

TEST(GbenchJsonReaderTest, CoefficientOfVariationIsNotATime) {
  const BenchmarkResults results = parse_gbench_json(kRepetitionsJson, "reps.json");
  EXPECT_FALSE(results.runs[4].has_times);
}

TEST(GbenchJsonReaderTest, KeepsCountersButNotDescriptiveFields) {
  const BenchmarkResults results = parse_gbench_json(kRepetitionsJson, "reps.json");
  const auto& counters = results.runs[0].counters;
  EXPECT_EQ(counters.size(), 1u);
  EXPECT_DOUBLE_EQ(counters.at("items_per_second"), 4.0e7);
}

TEST(GbenchJsonReaderTest, SamplesHoldEveryRepetitionOfABenchmark) {
  const BenchmarkResults results = parse_gbench_json(kRepetitionsJson, "reps.json");
  const std::vector<BenchmarkSamples> samples = collect_samples(results, metric_named("real_time"));
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].name, "BM_Add/64");
  EXPECT_EQ(samples[0].values, (std::vector<double>{1500.0, 1700.0, 1600.0}));
  EXPECT_FALSE(samples[0].from_aggregate);
}

TEST(GbenchJsonReaderTest, AggregatesOnlyOutputUsesTheMedianAggregate) {
  // --benchmark_report_aggregates_only=true writes no iteration entries.
  const BenchmarkResults results = parse_gbench_json(R"({"benchmarks": [
    {"name": "BM_Mul_mean", "run_name": "BM_Mul", "run_type": "aggregate", "aggregate_name": "mean",
     "real_time": 12.0, "cpu_time": 11.0, "time_unit": "ms"},
    {"name": "BM_Mul_median", "run_name": "BM_Mul", "run_type": "aggregate", "aggregate_name": "median",
     "real_time": 10.0, "cpu_time": 9.0, "time_unit": "ms"},
    {"name": "BM_Mul_stddev", "run_name": "BM_Mul", "run_type": "aggregate", "aggregate_name": "stddev",
     "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms"}]})",
                                                     "aggregates.json");
  const std::vector<BenchmarkSamples> samples = collect_samples(results, metric_named("real_time"));
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].values, std::vector<double>{10.0e6});
  EXPECT_TRUE(samples[0].from_aggregate);
}

TEST(GbenchJsonReaderTest, OldOutputWithoutRunTypeRecognisesAggregatesByName) {
  // Before Google Benchmark 1.4 entries had neither run_type nor run_name.
  const BenchmarkResults results = parse_gbench_json(R"({"benchmarks": [
    {"name": "BM_Old", "iterations": 10, "real_time": 100, "cpu_time": 100, "time_unit": "ns"},
    {"name": "BM_Old", "iterations": 10, "real_time": 120, "cpu_time": 110, "time_unit": "ns"},
    {"name": "BM_Old_mean", "iterations": 10, "real_time": 110, "cpu_time": 105, "time_unit": "ns"},
    {"name": "BM_Old_stddev", "iterations": 10, "real_time": 10, "cpu_time": 5, "time_unit": "ns"}]})",
                                                     "old.json");
  EXPECT_EQ(results.runs[2].run_type, RunType::kAggregate);
  EXPECT_EQ(results.runs[2].run_name, "BM_Old");
  const std::vector<BenchmarkSamples> samples = collect_samples(results, metric_named("real_time"));
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].values, (std::vector<double>{100.0, 120.0}));
}

TEST(GbenchJsonReaderTest, MissingTimeUnitMeansNanoseconds) {
  const BenchmarkResults results = parse_gbench_json(
      R"({"benchmarks": [{"name": "BM_X", "real_time": 7, "cpu_time": 6}]})", "x.json");
  EXPECT_DOUBLE_EQ(results.runs[0].real_time_ns, 7.0);
}

TEST(GbenchJsonReaderTest, NonFiniteCountersAsGoogleBenchmarkWritesThemAreSkipped) {
  const BenchmarkResults results = parse_gbench_json(
      R"({"benchmarks": [{"name": "BM_X_cv", "real_time": 7, "cpu_time": 6, "dropped": NaN,
          "gain": -Infinity, "label": "NaN stays text", "bytes": 5}]})",
      "cv.json");
  EXPECT_EQ(results.runs[0].counters.count("dropped"), 0u);
  EXPECT_EQ(results.runs[0].counters.count("gain"), 0u);
  EXPECT_DOUBLE_EQ(results.runs[0].counters.at("bytes"), 5.0);
}

TEST(GbenchJsonReaderTest, FailedRunsHaveNoTimes) {
  const BenchmarkResults results = parse_gbench_json(
      R"({"benchmarks": [{"name": "BM_Fail", "error_occurred": true, "error_message": "boom",
          "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]})",
      "fail.json");
  EXPECT_FALSE(results.runs[0].has_times);
  EXPECT_TRUE(collect_samples(results, metric_named("real_time")).empty());
}

TEST(GbenchJsonReaderTest, RateCountersAreHigherIsBetterAndTimesLower) {
  EXPECT_TRUE(metric_named("items_per_second").higher_is_better);
  EXPECT_TRUE(metric_named("bytes_per_second").higher_is_better);
  EXPECT_FALSE(metric_named("real_time").higher_is_better);
  EXPECT_FALSE(metric_named("cpu_time").higher_is_better);
}

TEST(GbenchJsonReaderTest, MalformedJsonNamesTheFile) {
  try {
    parse_gbench_json(R"({"benchmarks": [ {"name": )", "broken.json");
    FAIL() << "expected RegressInputError";
  } catch (const RegressInputError& error) {
    EXPECT_NE(std::string(error.what()).find("broken.json: not valid JSON"), std::string::npos)
        << error.what();
  }
}

TEST(GbenchJsonReaderTest, JsonWithoutBenchmarksArrayIsRejected) {
  EXPECT_THROW(parse_gbench_json(R"({"traceEvents": []})", "trace.json"), RegressInputError);
}

TEST(GbenchJsonReaderTest, UnknownTimeUnitNamesTheEntry) {
  try {
    parse_gbench_json(
        R"({"benchmarks": [{"name": "BM_Y", "real_time": 1, "cpu_time": 1, "time_unit": "min"}]})",
        "units.json");
    FAIL() << "expected RegressInputError";
  } catch (const RegressInputError& error) {
    EXPECT_NE(
        std::string(error.what()).find("units.json: benchmarks[0]: unknown time_unit \"min\""),
        std::string::npos)
        << error.what();
  }
}

TEST(GbenchJsonReaderTest, MissingFileNamesThePath) {
  try {
    read_gbench_json("/nonexistent/results.json");
    FAIL() << "expected RegressInputError";
  } catch (const RegressInputError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/results.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace tscope::regress
