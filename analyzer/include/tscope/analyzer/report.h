#pragma once
// A full analysis of one trace: its steps, where the time goes, the top ops and kernels, and the
// findings of every selected analysis, most costly first. What `tscope analyze` renders.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tscope/analyzer/analysis_context.h"
#include "tscope/analyzer/critical_path.h"
#include "tscope/analyzer/finding.h"
#include "tscope/analyzer/fix_plan.h"
#include "tscope/analyzer/op_breakdown.h"
#include "tscope/analyzer/stream_stats.h"
#include "tscope/analyzer/time_breakdown.h"

namespace tscope::analyzer {

struct ReportOptions {
  AnalysisOptions analysis;
  // Names from analysis_names(); empty runs them all.
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

struct Report {
  std::string source;  // what was analyzed, usually the file name
  StepSummary steps;
  std::optional<TimeBreakdown> time;
  std::optional<OpBreakdown> breakdown;
  std::optional<std::vector<StreamStats>> streams;  // GPU traces only
  std::optional<CriticalPath> critical_path;
  std::vector<Finding> findings;
  // The findings' fixes replayed one after another (empty without step ranges or fixes).
  FixPlan fix_plan;
};

// "time", "input", "copies", "fusion", "memory", "leaks", "launch", "roofline", "tensorcores",
// "queue", "breakdown", "streams", "critpath".
std::span<const std::string_view> analysis_names();

// Throws AnalyzerError for an unknown analysis name or a step filter that selects nothing.
Report run_report(const trace::Trace& trace, const ReportOptions& options, std::string source = {});

}  // namespace tscope::analyzer
