#include "tscope/analyzer/finding.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace tscope::analyzer {

std::string_view to_string(Severity severity) {
  static constexpr std::array kNames{"info", "low", "medium", "high"};
  return kNames[static_cast<std::size_t>(severity)];
}

std::string_view to_string(GainBasis basis) {
  switch (basis) {
    case GainBasis::kReplay:
      return "replay";
    case GainBasis::kNone:
      return "none";
    case GainBasis::kEstimate:
      break;
  }
  return "estimate";
}

double Finding::metric(std::string_view name) const {
  for (const Metric& entry : metrics) {
    if (entry.name == name) return entry.value;
  }
  throw std::out_of_range("finding '" + kind + "' has no metric '" + std::string(name) + "'");
}

Severity severity_for_share(double share) {
  if (share >= 0.20) return Severity::kHigh;
  if (share >= 0.05) return Severity::kMedium;
  if (share >= 0.01) return Severity::kLow;
  return Severity::kInfo;
}

void sort_by_cost(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.cost.time_per_step_ns != b.cost.time_per_step_ns) {
      return a.cost.time_per_step_ns > b.cost.time_per_step_ns;
    }
    return a.cost.bytes > b.cost.bytes;
  });
}

}  // namespace tscope::analyzer
