#pragma once
// The trace the viewer keeps open: a copy whose columns hold no growth slack. Loaders grow their
// columns by doubling, up to twice the bytes the events need; a copied vector allocates exactly
// its size, which keeps a loaded event within the viewer's 32-byte budget. Loading peaks at two
// copies for a moment.

#include "tscope/trace/trace.h"

namespace tscope::gui {

trace::Trace compact_trace(trace::Trace loaded);

}  // namespace tscope::gui
