#pragma once
// The session writer's side of set_trace_metadata: the process-wide values and a version that
// changes whenever one does, so the writer copies them only when something is new.

#include <cstdint>
#include <map>
#include <string>

namespace tscope::profiler {

struct ProcessMetadata {
  std::uint64_t version = 0;
  std::map<std::string, std::string> values;
};

// 0 until the first set_trace_metadata call.
std::uint64_t process_metadata_version();
ProcessMetadata process_metadata();

}  // namespace tscope::profiler
