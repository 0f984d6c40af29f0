// The verdict per benchmark, the added/removed lists and the geometric-mean summary.

#include "tscope/regress/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tscope::regress {
namespace {

// Past this many repetitions per side the test reaches any sensible alpha, so the search stops.
constexpr std::size_t kMaxRepetitionSearch = 64;

// Rates are turned into the equivalent time ratio so that "20% slower" means the same for both.
double slowdown_of(double change, bool higher_is_better) {
  if (!higher_is_better) return change;
  if (change <= -1.0) return std::numeric_limits<double>::infinity();
  return -change / (1.0 + change);
}

Verdict decide(const BenchmarkComparison& comparison, double alpha) {
  if (!comparison.threshold) return Verdict::kUngated;
  const double threshold = *comparison.threshold;
  if (std::abs(comparison.slowdown) <= threshold) return Verdict::kUnchanged;
  if (comparison.u_test && comparison.u_test->p_value >= alpha) return Verdict::kInconclusive;
  return comparison.slowdown > 0.0 ? Verdict::kRegressed : Verdict::kImproved;
}

const BenchmarkSamples* find_samples(const std::vector<BenchmarkSamples>& samples,
                                     std::string_view name) {
  const auto found =
      std::find_if(samples.begin(), samples.end(),
                   [&](const BenchmarkSamples& candidate) { return candidate.name == name; });
  return found == samples.end() ? nullptr : &*found;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kUngated:
      return "ungated";
  }
  return "unknown";
}

bool ComparisonReport::regressed() const {
  return std::any_of(benchmarks.begin(), benchmarks.end(),
                     [](const BenchmarkComparison& benchmark) {
                       return benchmark.verdict == Verdict::kRegressed;
                     });
}

double relative_change(double old_value, double new_value) {
  if (old_value == 0.0 && new_value == 0.0) return 0.0;
  if (old_value == 0.0) return (new_value - old_value) / ((old_value + new_value) / 2.0);
  return (new_value - old_value) / std::abs(old_value);
}

std::size_t minimum_repetitions(double alpha) {
  std::size_t repetitions = 1;
  while (repetitions < kMaxRepetitionSearch &&
         smallest_attainable_p_value(repetitions, repetitions) >= alpha) {
    ++repetitions;
  }
  return repetitions;
}

ComparisonReport compare_results(const BenchmarkResults& base, const BenchmarkResults& candidate,
                                 const Metric& metric, const ComparePolicy& policy) {
  const std::vector<BenchmarkSamples> base_samples =
      normalize_by_reference(collect_samples(base, metric), policy.normalizers, base.source);
  const std::vector<BenchmarkSamples> new_samples = normalize_by_reference(
      collect_samples(candidate, metric), policy.normalizers, candidate.source);

  ComparisonReport report;
  report.base_source = base.source;
  report.new_source = candidate.source;
  report.metric = metric;
  report.alpha = policy.alpha;

  double log_ratio_sum = 0.0;
  std::size_t log_ratio_count = 0;
  std::size_t untestable = 0;
  for (const BenchmarkSamples& before : base_samples) {
    const BenchmarkSamples* after = find_samples(new_samples, before.name);
    if (after == nullptr) {
      report.removed.push_back(before.name);
      continue;
    }
    BenchmarkComparison comparison;
    comparison.name = before.name;
    comparison.reference = before.reference;
    comparison.base_count = before.values.size();
    comparison.new_count = after->values.size();
    comparison.base_median = median(before.values);
    comparison.new_median = median(after->values);
    comparison.change = relative_change(comparison.base_median, comparison.new_median);
    comparison.slowdown = slowdown_of(comparison.change, metric.higher_is_better);
    comparison.threshold = policy.threshold_for(before.name);
    if (smallest_attainable_p_value(comparison.base_count, comparison.new_count) < policy.alpha) {
      comparison.u_test = mann_whitney_u(before.values, after->values);
    } else {
      ++untestable;
    }
    comparison.verdict = decide(comparison, policy.alpha);
    if (comparison.base_median > 0.0 && comparison.new_median > 0.0) {
      log_ratio_sum += std::log(comparison.new_median / comparison.base_median);
      ++log_ratio_count;
    }
    report.benchmarks.push_back(std::move(comparison));
  }
  for (const BenchmarkSamples& after : new_samples) {
    if (find_samples(base_samples, after.name) == nullptr) report.added.push_back(after.name);
  }
  if (log_ratio_count > 0) {
    report.geomean_change = std::exp(log_ratio_sum / static_cast<double>(log_ratio_count)) - 1.0;
  }
  if (untestable > 0) {
    report.warnings.push_back(fmt::format(
        "{} of {} benchmarks have too few repetitions for the U test to reach p < {} (it needs at "
        "least {} per "
        "side; 9 or more are recommended): their verdicts use the threshold on the medians only",
        untestable, report.benchmarks.size(), policy.alpha, minimum_repetitions(policy.alpha)));
  }
  return report;
}

}  // namespace tscope::regress
