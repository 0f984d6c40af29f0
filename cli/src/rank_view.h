#pragma once
// The ranks of one run as `tscope view` opens them: merged into one timeline, with the multi-rank
// analysis's findings (straggler, exposed communication, load imbalance) pointing at events of
// that merged timeline, so the findings panel jumps to them as to any other finding.

#include <filesystem>
#include <string>
#include <vector>

#include "tscope/analyzer/finding.h"
#include "tscope/trace/trace.h"

namespace tscope::cli {

struct RankView {
  trace::Trace trace;
  std::vector<analyzer::Finding> findings;  // evidence in the merged trace's numbering
  std::string analysis_error;               // why the multi-rank analysis gave no findings
};

// Loads, analyzes and merges the traces. A set the multi-rank analysis rejects (traces of
// different runs) still opens, with the reason in analysis_error. Throws what load_ranks throws.
RankView load_rank_view(const std::vector<std::filesystem::path>& files, bool quiet);

}  // namespace tscope::cli
