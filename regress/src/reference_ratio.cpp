// Pairing benchmarks with their in-run reference and dividing by the reference's median.

#include "tscope/regress/reference_ratio.h"

#include <fmt/format.h>

#include <algorithm>

#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

const BenchmarkSamples& find_reference(const std::vector<BenchmarkSamples>& samples,
                                       const std::string& reference, const std::string& name,
                                       const std::filesystem::path& source) {
  const auto found =
      std::find_if(samples.begin(), samples.end(),
                   [&](const BenchmarkSamples& candidate) { return candidate.name == reference; });
  if (found == samples.end()) {
    throw RegressInputError(
        fmt::format("{}: benchmark \"{}\" is measured against \"{}\", which is not in the file",
                    source.string(), name, reference));
  }
  if (median(found->values) == 0.0) {
    throw RegressInputError(fmt::format("{}: reference benchmark \"{}\" has a zero median",
                                        source.string(), reference));
  }
  return *found;
}

NameRegex compile_pairing(std::string_view pattern, std::string_view reference_template) {
  try {
    NameRegex regex(pattern);
    regex.check_replacement(reference_template);
    return regex;
  } catch (const NameRegexError& error) {
    throw RegressInputError(fmt::format("bad benchmark pattern \"{}\": {}", pattern, error.what()));
  }
}

}  // namespace

ReferencePairing::ReferencePairing(std::string_view pattern, std::string_view reference_template)
    : pattern_(compile_pairing(pattern, reference_template)),
      reference_template_(reference_template) {}

std::optional<std::string> ReferencePairing::reference_for(std::string_view name) const {
  return pattern_.rewrite(name, reference_template_);
}

std::vector<ReferenceRatio> reference_ratios(const BenchmarkResults& results, const Metric& metric,
                                             const ReferencePairing& pairing) {
  const std::vector<BenchmarkSamples> samples = collect_samples(results, metric);
  std::vector<ReferenceRatio> ratios;
  for (const BenchmarkSamples& benchmark : samples) {
    const std::optional<std::string> reference = pairing.reference_for(benchmark.name);
    if (!reference) continue;
    const BenchmarkSamples& reference_samples =
        find_reference(samples, *reference, benchmark.name, results.source);
    ReferenceRatio ratio{benchmark.name, *reference, median(benchmark.values),
                         median(reference_samples.values), 0.0};
    ratio.ratio = ratio.median / ratio.reference_median;
    ratios.push_back(std::move(ratio));
  }
  return ratios;
}

std::vector<BenchmarkSamples> normalize_by_reference(const std::vector<BenchmarkSamples>& samples,
                                                     const std::vector<ReferencePairing>& pairings,
                                                     const std::filesystem::path& source) {
  std::vector<BenchmarkSamples> normalized = samples;
  for (BenchmarkSamples& benchmark : normalized) {
    for (const ReferencePairing& pairing : pairings) {
      const std::optional<std::string> reference = pairing.reference_for(benchmark.name);
      if (!reference) continue;
      const double reference_median =
          median(find_reference(samples, *reference, benchmark.name, source).values);
      for (double& value : benchmark.values)
        value /= reference_median;
      benchmark.reference = *reference;
      break;
    }
  }
  return normalized;
}

}  // namespace tscope::regress
