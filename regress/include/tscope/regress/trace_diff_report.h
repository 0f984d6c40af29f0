#pragma once
// Renders a TraceDiff as a terminal table, Markdown or JSON (schema "tscope.trace-diff/1",
// documented in docs/regression.md).

#include <cstddef>
#include <string>

#include "tscope/regress/report.h"
#include "tscope/regress/trace_diff.h"

namespace tscope::regress {

// Text and Markdown show the `top` entries that add the most time per step and the `top` that
// save the most; JSON always holds every entry.
std::string render_trace_diff(const TraceDiff& diff, ReportFormat format, std::size_t top);

}  // namespace tscope::regress
