#include "tscope/gui/compact_trace.h"

#include <malloc.h>

#include <utility>

namespace tscope::gui {

trace::Trace compact_trace(trace::Trace loaded) {
  // Copy construction sizes every vector to its contents.
  trace::Trace compact(std::as_const(loaded));
  loaded = trace::Trace();
  // glibc keeps freed heap blocks for reuse; the loader's columns are not coming back.
  malloc_trim(0);
  return compact;
}

}  // namespace tscope::gui
