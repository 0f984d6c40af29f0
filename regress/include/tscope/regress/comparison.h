#pragma once
// Compares two Google Benchmark runs benchmark by benchmark under a ComparePolicy and decides,
// for each, whether it regressed.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/regress/benchmark_results.h"
#include "tscope/regress/mann_whitney.h"
#include "tscope/regress/policy.h"

namespace tscope::regress {

enum class Verdict {
  kRegressed,     // slower by more than the threshold, and significant when the test applies
  kImproved,      // faster by more than the threshold, and significant when the test applies
  kUnchanged,     // within the threshold
  kInconclusive,  // beyond the threshold, but the U test does not call the difference real
  kUngated,       // its threshold is "none": reported, never a failure
};

std::string_view verdict_name(Verdict verdict);

struct BenchmarkComparison {
  std::string name;
  std::string reference;  // non-empty when both sides are ratios to this benchmark
  std::size_t base_count = 0;
  std::size_t new_count = 0;
  double base_median = 0.0;
  double new_median = 0.0;
  double change = 0.0;  // new over base median, minus one, in the metric's own direction
  double slowdown =
      0.0;  // how much worse, as a fraction: time ratio minus one, or inverse rate ratio minus one
  std::optional<double> threshold;
  // Set when the repetitions can reach alpha; otherwise the verdict uses the medians only.
  std::optional<MannWhitneyResult> u_test;
  Verdict verdict = Verdict::kUnchanged;
};

struct ComparisonReport {
  std::filesystem::path base_source;
  std::filesystem::path new_source;
  Metric metric;
  double alpha = 0.05;
  std::vector<BenchmarkComparison> benchmarks;  // in the base file's order
  std::vector<std::string> added;               // only in the new run
  std::vector<std::string> removed;             // only in the base run
  // Geometric mean over all compared benchmarks of new over base median, minus one.
  std::optional<double> geomean_change;
  std::vector<std::string> warnings;

  bool regressed() const;
};

ComparisonReport compare_results(const BenchmarkResults& base, const BenchmarkResults& candidate,
                                 const Metric& metric, const ComparePolicy& policy);

// Relative change as Google Benchmark's compare.py computes it: (new - old) / |old|, with
// 0 for two zeros and the mean of both as denominator when old is zero.
double relative_change(double old_value, double new_value);

// The fewest repetitions per side with which the U test can reach p < alpha.
std::size_t minimum_repetitions(double alpha);

}  // namespace tscope::regress
