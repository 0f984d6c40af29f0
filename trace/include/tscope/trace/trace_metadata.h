#pragma once
// Facts about a trace as a whole: where it came from, what the recorder had to drop, what a
// reader could not recover, and free-form key/values (device names, driver and CUDA versions).

#include <cstdint>
#include <map>
#include <string>

namespace tscope::trace {

struct TraceMetadata {
  std::string source_format;         // "tsc", "chrome-json", "nsys-sqlite", "tscope-profiler", ...
  std::uint64_t dropped_events = 0;  // events the recorder dropped because its writer fell behind
  // What a reader skipped from a damaged input (a cut-off file): not part of what a writer saves.
  std::uint64_t lost_bytes = 0;
  std::uint64_t lost_records = 0;
  std::map<std::string, std::string> values;

  bool operator==(const TraceMetadata&) const = default;
};

}  // namespace tscope::trace
