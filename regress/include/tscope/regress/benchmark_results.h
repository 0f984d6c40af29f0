#pragma once
// The results of one Google Benchmark run as read from its JSON output, and the per-benchmark
// samples (one per repetition) that a comparison works on.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tscope::regress {

enum class RunType { kIteration, kAggregate };

// One entry of the "benchmarks" array. Times are converted to nanoseconds whatever the
// entry's time_unit was, so runs written with different units compare directly.
struct BenchmarkRun {
  std::string name;      // the entry's name, e.g. "BM_Matmul/256_median"
  std::string run_name;  // the benchmark it measures, e.g. "BM_Matmul/256"
  RunType run_type = RunType::kIteration;
  std::string aggregate_name;  // mean, median, stddev, cv, ... (aggregates only)
  bool has_times = false;      // false for BigO/RMS entries and failed runs
  double real_time_ns = 0.0;
  double cpu_time_ns = 0.0;
  std::map<std::string, double, std::less<>> counters;  // user counters and *_per_second rates
};

struct BenchmarkResults {
  std::filesystem::path source;
  std::vector<BenchmarkRun> runs;
};

// What is compared: a time, or a counter such as items_per_second.
struct Metric {
  std::string name;
  bool higher_is_better = false;
};

// real_time and cpu_time are lower-is-better; counters named *_per_second (Google Benchmark
// writes rate counters that way, items_per_second and bytes_per_second among them) are
// higher-is-better; any other counter is treated as a cost, lower-is-better.
Metric metric_named(std::string_view name);

// The values of one metric for one benchmark, in the order the repetitions ran.
struct BenchmarkSamples {
  std::string name;
  std::vector<double> values;
  // True when the file holds aggregates only (--benchmark_report_aggregates_only): the one
  // value is the median aggregate (or the mean when no median was written).
  bool from_aggregate = false;
  // Set when the values are ratios to this reference benchmark of the same run.
  std::string reference;
};

// Groups the repetitions of each benchmark, keeping the order in which benchmarks first appear.
// Entries without the metric (BigO, RMS, failed runs, a counter the benchmark lacks) are left out.
std::vector<BenchmarkSamples> collect_samples(const BenchmarkResults& results,
                                              const Metric& metric);

double median(std::vector<double> values);

}  // namespace tscope::regress
