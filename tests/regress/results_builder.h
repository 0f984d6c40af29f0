#pragma once
// Builds BenchmarkResults in memory for tests: each benchmark with its repetitions' times.

#include <string>
#include <utility>
#include <vector>

#include "tscope/regress/benchmark_results.h"

namespace tscope::regress::testing {

struct NamedSamples {
  std::string name;
  std::vector<double> values;  // real and cpu time in ns, one per repetition
};

inline BenchmarkResults results_of(const std::string& source,
                                   const std::vector<NamedSamples>& benchmarks) {
  BenchmarkResults results;
  results.source = source;
  for (const NamedSamples& benchmark : benchmarks) {
    for (const double value : benchmark.values) {
      BenchmarkRun run;
      run.name = benchmark.name;
      run.run_name = benchmark.name;
      run.has_times = true;
      run.real_time_ns = value;
      run.cpu_time_ns = value;
      run.counters.emplace("items_per_second", 1e9 / value);
      results.runs.push_back(std::move(run));
    }
  }
  return results;
}

}  // namespace tscope::regress::testing
