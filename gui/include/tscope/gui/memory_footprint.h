#pragma once
// Bytes a loaded trace and the viewer's indexes over it occupy, per event: the figure behind the
// viewer's budget of 32 bytes per loaded event.

#include <cstdint>

#include "tscope/gui/lane_layout.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

struct MemoryFootprint {
  std::uint64_t trace_bytes = 0;   // columns, side tables, flows, strings (allocated capacity)
  std::uint64_t viewer_bytes = 0;  // the lane layout; frames reuse one bounded draw list
  std::uint64_t events = 0;        // spans, instants, counter samples and memory events

  double bytes_per_event() const {
    return events == 0 ? 0 : static_cast<double>(trace_bytes + viewer_bytes) / events;
  }
};

// The string table's share is estimated from its layout (each string's heap block when longer
// than the small-string buffer, a hash node and bucket per string); the rest is exact capacity.
MemoryFootprint memory_footprint(const trace::Trace& trace, const LaneLayout& layout);

}  // namespace tscope::gui
