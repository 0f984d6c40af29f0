#pragma once
// The selected event and what the timeline shows with it: the flows (launch -> kernel,
// op -> kernel) that touch it, and where a span sits on screen.

#include <optional>
#include <vector>

#include "tscope/gui/lane_layout.h"
#include "tscope/gui/timeline_frame.h"
#include "tscope/trace/trace.h"

namespace tscope::gui {

// Flows with `event` at either end. Found once when the selection changes: the flow table is
// sorted by source, so the flows into a kernel take one scan.
std::vector<trace::Flow> selection_flows(const trace::Trace& trace, trace::EventRef event);

// The screen rectangle of span `event` for a frame of `request`, before clipping.
struct SpanPlace {
  double x0, x1;
  float y0, y1;
};
std::optional<SpanPlace> span_place(const FrameRequest& request, trace::EventRef event);

// The first span named exactly `name`, in time order over all tracks.
std::optional<trace::EventRef> find_span_named(const trace::Trace& trace, std::string_view name);

}  // namespace tscope::gui
