#include "rank_view.h"

#include <utility>

#include "merged_ranks.h"
#include "tscope/analyzer/multirank.h"

namespace tscope::cli {

RankView load_rank_view(const std::vector<std::filesystem::path>& files, bool quiet) {
  LoadedRanks loaded = load_ranks(files, quiet);
  RankView view;
  try {
    std::vector<analyzer::RankSummary> summaries;
    summaries.reserve(loaded.traces.size());
    for (std::size_t index = 0; index < loaded.traces.size(); ++index)
      summaries.push_back(analyzer::summarize_rank(loaded.traces[index], files[index].string()));
    view.findings = analyzer::analyze_ranks(std::move(summaries)).findings;
  } catch (const analyzer::AnalyzerError& error) {
    view.analysis_error = error.what();
  }
  MergedRanks merged = merge_ranks(loaded.traces, loaded.ranks);
  loaded = {};
  for (analyzer::Finding& finding : view.findings) {
    if (finding.evidence_rank < 0) continue;
    std::vector<trace::EventRef> evidence;
    for (const trace::EventRef& event : finding.evidence) {
      if (const auto in_merged = merged.to_merged(finding.evidence_rank, event))
        evidence.push_back(*in_merged);
    }
    finding.evidence = std::move(evidence);
    finding.evidence_rank = -1;
  }
  view.trace = std::move(merged.trace);
  return view;
}

}  // namespace tscope::cli
