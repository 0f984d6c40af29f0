#pragma once
// The pieces the text and Markdown renderers share: the labelled rows of the time breakdown, a
// finding's cost and gain in words, and names cut to a readable width.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tscope/analyzer/report.h"

namespace tscope::analyzer {

struct TimeRow {
  std::string_view label;
  double ns = 0;
};

std::vector<TimeRow> gpu_rows(const TimeBreakdown& time);
std::vector<TimeRow> host_rows(const TimeBreakdown& time);
std::string cost_text(const Finding& finding);  // "12.3 ms per step (34.1% of step)" or "1.20 MiB"
std::string gain_text(const Finding& finding);  // empty when there is no estimate
std::string steps_text(const StepSummary& steps);
std::string shorten(std::string_view name, std::size_t width);

}  // namespace tscope::analyzer
