#pragma once
// Exports a Trace as Perfetto's protobuf trace format (a stream of TracePackets holding
// TrackEvents), the format Perfetto's UI and trace processor load best and several times smaller
// than JSON: one track descriptor per process, host thread, GPU stream (under its device) and
// counter, slices as begin/end pairs with names and categories interned once, launch -> kernel
// and the other flows as flow ids, memory pools as allocated/reserved byte counters. Rows follow
// the Chrome export's grid, so spans of one track that overlap without nesting go to an extra
// "(overlapping)" track, as there.

#include <filesystem>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// Streams as it goes: besides the trace, memory grows only with its tracks, distinct strings and
// flows (4 bytes each), never with the output; gzip when `path` ends in ".gz" (Perfetto reads
// both). Throws IoError when the file cannot be written.
void write_perfetto(const Trace& trace, const std::filesystem::path& path);

}  // namespace tscope::trace
