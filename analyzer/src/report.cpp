#include "tscope/analyzer/report.h"

#include <algorithm>

#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/errors.h"

namespace tscope::analyzer {
namespace {

bool selected(const ReportOptions& options, std::string_view name) {
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), name) != options.only.end();
}

void check_names(const ReportOptions& options) {
  for (const std::string& name : options.only) {
    if (find_analysis(name) != nullptr) continue;
    std::string known;
    for (const Analysis* analysis : analyses())
      known += (known.empty() ? "" : ", ") + std::string(analysis->name);
    std::string message = "unknown analysis '" + name;
    message += "' (known: ";
    message += known;
    message += ")";
    throw AnalyzerError(message);
  }
}

}  // namespace

const Section* Report::section(std::string_view key) const {
  const auto found = std::find_if(sections.begin(), sections.end(),
                                  [&](const Section& each) { return each.key == key; });
  return found == sections.end() ? nullptr : &*found;
}

const TimeBreakdown* Report::time() const {
  return section_data<TimeBreakdown>(kTimeSection);
}

const OpBreakdown* Report::breakdown() const {
  return section_data<OpBreakdown>(kBreakdownSection);
}

const std::vector<StreamStats>* Report::streams() const {
  return section_data<std::vector<StreamStats>>(kStreamsSection);
}

const CriticalPath* Report::critical_path() const {
  return section_data<CriticalPath>(kCriticalPathSection);
}

StepSummary summarize_steps(const StepSet& steps) {
  return {steps.steps.size(), steps.whole_trace, steps.mean_ns(),
          steps.min_ns(),     steps.max_ns(),    steps.stddev_ns()};
}

Report run_report(const trace::Trace& trace, const ReportOptions& options, std::string source) {
  check_names(options);
  const AnalysisContext context(trace, options.analysis);
  Report report;
  report.source = std::move(source);
  report.steps = summarize_steps(context.steps());
  for (const Analysis* analysis : analyses()) {
    if (!selected(options, analysis->name)) continue;
    AnalysisOutput output = analysis->run(context);
    std::move(output.findings.begin(), output.findings.end(), std::back_inserter(report.findings));
    std::move(output.sections.begin(), output.sections.end(), std::back_inserter(report.sections));
  }
  report.fix_plan = plan_fixes(context, report.findings);
  sort_by_cost(report.findings);
  return report;
}

}  // namespace tscope::analyzer
