#pragma once
// Facts about the recording process (a distributed rank, its host and job) that belong in the
// metadata of every trace it writes: kept process-wide, written into the running session's trace
// at its next flush and into any session that starts later.

#include <string_view>

namespace tscope::profiler {

// Sets (or replaces) `key` in TraceMetadata::values of this process's traces. Thread-safe.
void set_trace_metadata(std::string_view key, std::string_view value);

}  // namespace tscope::profiler
