#pragma once
// Exports a Trace as Chrome Trace Event JSON in Kineto's conventions, so Perfetto UI,
// chrome://tracing, HTA and our own reader open it: relative microsecond timestamps with
// nanosecond decimals, pid = device and tid = stream for GPU rows, launch flows as "ac2g" s/f
// pairs, memory events as Kineto's "[memory]" instants plus counters.

#include <filesystem>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// Streams as it goes (constant memory); gzip when `path` ends in ".gz". Throws IoError when the
// file cannot be written.
void write_chrome_json(const Trace& trace, const std::filesystem::path& path);

}  // namespace tscope::trace
