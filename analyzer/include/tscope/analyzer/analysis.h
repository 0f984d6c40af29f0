#pragma once
// The registry of analyses `tscope analyze` runs: each one's name, the finding kinds it emits, the
// sections it adds to the report, and the function that runs it. Renderers and `--only` read this
// table alone, so a new analysis is its own file and its entry in analyzer/src/analyses.cpp.

#include <span>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/finding.h"
#include "tscope/analyzer/section.h"

namespace tscope::analyzer {

struct AnalysisOutput {
  std::vector<Finding> findings;
  std::vector<Section> sections;  // each keyed by one of its analysis' section_keys
};

struct Analysis {
  std::string_view name;                            // as `tscope analyze --only NAME` selects it
  std::span<const std::string_view> finding_kinds;  // every kind its findings may have
  // The sections it may return; the JSON report holds each as a field, null when the analysis was
  // not selected or had nothing to show (no GPU for the streams), so CI sees a stable set of
  // fields.
  std::span<const std::string_view> section_keys;
  AnalysisOutput (*run)(const AnalysisContext& context);
};

// An analysis that only finds: `find` as a run function.
template <std::vector<Finding> (*find)(const AnalysisContext&)>
AnalysisOutput findings_of(const AnalysisContext& context) {
  return {find(context), {}};
}

// In the order they run, which is the order of the report's sections and, among equally costly
// findings, of the findings.
std::span<const Analysis* const> analyses();

// nullptr for a name no analysis has.
const Analysis* find_analysis(std::string_view name);

}  // namespace tscope::analyzer
