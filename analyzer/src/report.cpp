#include "tscope/analyzer/report.h"

#include <algorithm>
#include <array>

#include "tscope/analyzer/copies.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/fusion.h"
#include "tscope/analyzer/input_stalls.h"
#include "tscope/analyzer/launch.h"
#include "tscope/analyzer/leaks.h"
#include "tscope/analyzer/memory.h"
#include "tscope/analyzer/roofline.h"
#include "tscope/analyzer/stream_stats.h"
#include "tscope/analyzer/tensor_cores.h"

namespace tscope::analyzer {
namespace {

using FindingAnalysis = std::vector<Finding> (*)(const AnalysisContext&);

struct NamedAnalysis {
  std::string_view name;
  FindingAnalysis run;  // nullptr for the sections that are not findings
};

constexpr std::array kAnalyses{
    NamedAnalysis{"time", nullptr},
    NamedAnalysis{"input", &find_input_stalls},
    NamedAnalysis{"copies", &find_copy_and_sync_problems},
    NamedAnalysis{"fusion", &find_fusion_opportunities},
    NamedAnalysis{"memory", &find_memory_pressure},
    NamedAnalysis{"leaks", &find_leaks},
    NamedAnalysis{"launch", &find_launch_bound},
    NamedAnalysis{"roofline", &find_roofline_gaps},
    NamedAnalysis{"tensorcores", &find_tensor_core_use},
    NamedAnalysis{"queue", &find_full_launch_queue},
    NamedAnalysis{"breakdown", nullptr},
    NamedAnalysis{"streams", nullptr},
    NamedAnalysis{"critpath", nullptr},  // a section and its findings, from one computation
};

constexpr std::array<std::string_view, kAnalyses.size()> kNames = [] {
  std::array<std::string_view, kAnalyses.size()> names{};
  for (std::size_t i = 0; i < kAnalyses.size(); ++i)
    names[i] = kAnalyses[i].name;
  return names;
}();

bool selected(const ReportOptions& options, std::string_view name) {
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), name) != options.only.end();
}

}  // namespace

std::span<const std::string_view> analysis_names() {
  return kNames;
}

StepSummary summarize_steps(const StepSet& steps) {
  return {steps.steps.size(), steps.whole_trace, steps.mean_ns(),
          steps.min_ns(),     steps.max_ns(),    steps.stddev_ns()};
}

Report run_report(const trace::Trace& trace, const ReportOptions& options, std::string source) {
  for (const std::string& name : options.only) {
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end()) {
      std::string known;
      for (const std::string_view each : kNames)
        known += (known.empty() ? "" : ", ") + std::string(each);
      throw AnalyzerError("unknown analysis '" + name + "' (known: " + known + ")");
    }
  }
  const AnalysisContext context(trace, options.analysis);
  Report report;
  report.source = std::move(source);
  report.steps = summarize_steps(context.steps());
  if (selected(options, "time")) report.time = context.time_breakdown();
  if (selected(options, "breakdown")) report.breakdown = compute_op_breakdown(context);
  if (selected(options, "streams") && context.has_gpu())
    report.streams = compute_stream_stats(context);
  for (const NamedAnalysis& analysis : kAnalyses) {
    if (analysis.run == nullptr || !selected(options, analysis.name)) continue;
    std::vector<Finding> findings = analysis.run(context);
    std::move(findings.begin(), findings.end(), std::back_inserter(report.findings));
  }
  if (selected(options, "critpath")) {
    report.critical_path = compute_critical_path(context);
    std::vector<Finding> findings = find_critical_path_problems(context, *report.critical_path);
    std::move(findings.begin(), findings.end(), std::back_inserter(report.findings));
  }
  report.fix_plan = plan_fixes(context, report.findings);
  sort_by_cost(report.findings);
  return report;
}

}  // namespace tscope::analyzer
