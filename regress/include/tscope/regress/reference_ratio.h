#pragma once
// Ratios to a reference measured in the same run (engine matmul over raw BLAS sgemm, engine add
// over a plain loop): the machine's speed cancels out, so the ratio holds on a noisy shared host.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/regress/benchmark_results.h"
#include "tscope/report/name_regex.h"

namespace tscope::regress {

// Names the reference of each benchmark matching `pattern` (a regular expression, report/
// name_regex.h, that must match the whole name) by substituting its groups into
// `reference_template` ($1, $2, ...).
class ReferencePairing {
 public:
  // Throws RegressInputError when the pattern does not compile or the template names a group the
  // pattern lacks.
  ReferencePairing(std::string_view pattern, std::string_view reference_template);

  std::optional<std::string> reference_for(std::string_view name) const;

 private:
  NameRegex pattern_;
  std::string reference_template_;
};

struct ReferenceRatio {
  std::string name;
  std::string reference;
  double median = 0.0;            // the benchmark's median
  double reference_median = 0.0;  // the reference's median
  double ratio = 0.0;             // median / reference_median
};

// One ratio per benchmark the pairing matches, in file order. Throws RegressInputError naming
// `results.source` when a matched benchmark's reference is missing or its median is zero.
std::vector<ReferenceRatio> reference_ratios(const BenchmarkResults& results, const Metric& metric,
                                             const ReferencePairing& pairing);

// Divides every value of each benchmark matched by one of `pairings` (the first that matches) by
// its reference's median, and records the reference's name. Benchmarks no pairing matches are
// returned unchanged. Throws like reference_ratios.
std::vector<BenchmarkSamples> normalize_by_reference(const std::vector<BenchmarkSamples>& samples,
                                                     const std::vector<ReferencePairing>& pairings,
                                                     const std::filesystem::path& source);

}  // namespace tscope::regress
