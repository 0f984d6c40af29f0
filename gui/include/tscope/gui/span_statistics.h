#pragma once
// The statistics panel's table: ops, kernels, copies and memsets in a time range, grouped by name
// and category, most total time first.

#include <cstdint>
#include <vector>

#include "tscope/gui/time_view.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

struct SpanStatistic {
  trace::StringId name = trace::kEmptyString;
  trace::Category category = trace::Category::kOther;
  std::uint64_t count = 0;
  TimeNs total = 0;
  TimeNs longest = 0;
};

// Counts spans that start inside `range`; computed on request, not per frame, since a range can
// cover the whole trace.
std::vector<SpanStatistic> span_statistics(const trace::Trace& trace, TimeRange range);

}  // namespace tscope::gui
