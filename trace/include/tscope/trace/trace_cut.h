#pragma once
// Cuts a trace to a time window (`tscope convert --range/--steps`): what a user keeps of a long
// run to share or open in a viewer that cannot take the whole.

#include "tscope/trace/capture_window.h"
#include "tscope/trace/trace.h"

namespace tscope::trace {

// Keeps every span that overlaps [window.begin, window.end) (whole, not clipped, so nesting and
// durations stay true), the instants, counter samples and memory events inside it, and the flows
// whose two ends are kept. What held at the window's start stays too: each counter's last value
// before it and each allocation still live then, both as events at window.begin (a live
// allocation with its size, address, owner and scope, and the allocator totals of the last event
// before the window). Processes, tracks, strings and metadata are kept whole; the metadata also
// records the window (capture_window.h). A zero-length window keeps the spans around its time.
Trace cut_trace(const Trace& trace, const CaptureWindow& window);

}  // namespace tscope::trace
