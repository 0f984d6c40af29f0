// Metric directions and the grouping of repetitions into per-benchmark samples.

#include "tscope/regress/benchmark_results.h"

#include <algorithm>
#include <map>
#include <optional>

namespace tscope::regress {
namespace {

constexpr std::string_view kRateSuffix = "_per_second";

std::optional<double> metric_value(const BenchmarkRun& run, const Metric& metric) {
  if (metric.name == "real_time" || metric.name == "cpu_time") {
    if (!run.has_times) return std::nullopt;
    return metric.name == "real_time" ? run.real_time_ns : run.cpu_time_ns;
  }
  const auto counter = run.counters.find(metric.name);
  if (counter == run.counters.end()) return std::nullopt;
  return counter->second;
}

}  // namespace

Metric metric_named(std::string_view name) {
  return Metric{std::string(name), name.ends_with(kRateSuffix)};
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(values.begin(), middle);
  return (lower + upper) / 2.0;
}

std::vector<BenchmarkSamples> collect_samples(const BenchmarkResults& results,
                                              const Metric& metric) {
  std::vector<BenchmarkSamples> samples;
  std::map<std::string, std::size_t, std::less<>> index_of;
  std::map<std::string, std::map<std::string, double, std::less<>>, std::less<>> aggregates;

  for (const BenchmarkRun& run : results.runs) {
    const std::optional<double> value = metric_value(run, metric);
    if (!value) continue;
    auto [entry, inserted] = index_of.try_emplace(run.run_name, samples.size());
    if (inserted) samples.push_back(BenchmarkSamples{run.run_name, {}, false, {}});
    if (run.run_type == RunType::kIteration) {
      samples[entry->second].values.push_back(*value);
    } else {
      aggregates[run.run_name][run.aggregate_name] = *value;
    }
  }

  for (BenchmarkSamples& benchmark : samples) {
    if (!benchmark.values.empty()) continue;
    const auto found = aggregates.find(benchmark.name);
    if (found == aggregates.end()) continue;
    for (const std::string_view preferred : {"median", "mean"}) {
      if (const auto value = found->second.find(preferred); value != found->second.end()) {
        benchmark.values.push_back(value->second);
        benchmark.from_aggregate = true;
        break;
      }
    }
  }
  std::erase_if(samples,
                [](const BenchmarkSamples& benchmark) { return benchmark.values.empty(); });
  return samples;
}

}  // namespace tscope::regress
