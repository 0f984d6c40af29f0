#pragma once
// The pieces the text and Markdown renderers share: the labelled rows of the time breakdown, a
// finding's cost and gain in words, and names cut to a readable width.

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tscope/analyzer/multirank.h"
#include "tscope/analyzer/report.h"

namespace tscope::analyzer {

// How wide names are cut: in a column of the text report, in a Markdown table cell.
inline constexpr std::size_t kTextNameWidth = 60;
inline constexpr std::size_t kMarkdownNameWidth = 80;

// printf into a string, for the text report's fixed-width columns.
template <typename... Values>
std::string formatted(const char* format, Values... values) {
  char text[512];
  std::snprintf(text, sizeof text, format, values...);
  return text;
}

// Markdown table cells cannot hold '|' or newlines.
std::string markdown_cell(std::string_view text);

struct TimeRow {
  std::string_view label;
  double ns = 0;
};

std::vector<TimeRow> gpu_rows(const TimeBreakdown& time);
std::vector<TimeRow> host_rows(const TimeBreakdown& time);
// How GPU work was attributed to the steps, in one sentence: the GPU window and the work that had
// no launch record (attributed by overlap instead).
std::string gpu_attribution_text(const TimeBreakdown& time);
std::string cost_text(const Finding& finding);  // "12.3 ms per step (34.1% of step)" or "1.20 MiB"
std::string gain_text(const Finding& finding);  // empty when there is no estimate
std::string list_text(const std::vector<std::string>& items);  // "input-wait*0; remove-sync:..."
// A planned fix's effect: "-59.0 ms (-33.7%)".
std::string fix_change_text(const PlannedFix& fix, double step_before_ns);
std::string steps_text(const StepSummary& steps);
std::string shorten(std::string_view name, std::size_t width);

// Multi-rank pieces: "2 ranks of 128 (absent: 2-127), backend nccl", the matching in words,
// a rank's clock offset ("reference", "same host", "+1.20 ms ± 3.0 µs", "unknown"), "12.3 GB/s".
std::string rank_set_text(const MultiRankReport& report);
std::string matching_text(const MultiRankReport& report);
std::string clock_text(const RankReport& rank);
std::string bandwidth_text(double bytes_per_second);

}  // namespace tscope::analyzer
