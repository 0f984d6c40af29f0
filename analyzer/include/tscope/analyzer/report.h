#pragma once
// A full analysis of one trace: its steps, the sections and findings of every selected analysis
// (analysis.h), most costly finding first, and the plan of their fixes. What `tscope analyze`
// renders.

#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/critical_path.h"
#include "tscope/analyzer/finding.h"
#include "tscope/analyzer/fix_plan.h"
#include "tscope/analyzer/op_breakdown.h"
#include "tscope/analyzer/section.h"
#include "tscope/analyzer/stream_stats.h"
#include "tscope/analyzer/time_breakdown.h"

namespace tscope::analyzer {

struct ReportOptions {
  AnalysisOptions analysis;
  // Names of analyses (analysis.h); empty runs them all.
  std::vector<std::string> only;
};

struct StepSummary {
  std::size_t count = 0;
  bool whole_trace = false;
  double mean_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
  double stddev_ns = 0;
};

StepSummary summarize_steps(const StepSet& steps);

// The keys of the sections that callers read as data.
inline constexpr std::string_view kTimeSection = "time";
inline constexpr std::string_view kBreakdownSection = "breakdown";
inline constexpr std::string_view kStreamsSection = "streams";
inline constexpr std::string_view kCriticalPathSection = "critical_path";

struct Report {
  std::string source;  // what was analyzed, usually the file name
  StepSummary steps;
  std::vector<Section> sections;  // in the order of the analyses that returned them
  std::vector<Finding> findings;
  // The findings' fixes replayed one after another (empty without step ranges or fixes).
  FixPlan fix_plan;

  const Section* section(std::string_view key) const;  // nullptr when no analysis returned it
  // The data behind a section, nullptr when the report has no such section.
  template <typename Data>
  const Data* section_data(std::string_view key) const {
    const Section* found = section(key);
    const auto* data =
        found ? dynamic_cast<const DataSection<Data>*>(found->custom.get()) : nullptr;
    return data ? &data->data() : nullptr;
  }
  const TimeBreakdown* time() const;
  const OpBreakdown* breakdown() const;
  const std::vector<StreamStats>* streams() const;  // GPU traces only
  const CriticalPath* critical_path() const;
};

// Throws AnalyzerError for an unknown analysis name or a step filter that selects nothing.
Report run_report(const trace::Trace& trace, const ReportOptions& options, std::string source = {});

}  // namespace tscope::analyzer
