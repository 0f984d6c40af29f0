#pragma once
// What an importer could not use, counted per reason, as Perfetto's trace processor keeps its
// stats table: an event without a usable timestamp, an end without its begin. The counts go into
// the trace's metadata as `import.<reason>`, which `tscope info` lists, so that a trace that looks
// thin says what its reader left out and why.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "tscope/trace/trace_builder.h"

namespace tscope::trace {

class ImportStats {
 public:
  // `reason` is a stable snake_case name with the format's prefix ("chrome.invalid_timestamp").
  void add(std::string_view reason, std::uint64_t count = 1) {
    if (count == 0) return;
    const auto found = counts_.find(reason);
    if (found == counts_.end()) {
      counts_.emplace(std::string(reason), count);
    } else {
      found->second += count;
    }
  }
  std::uint64_t count(std::string_view reason) const {
    const auto found = counts_.find(reason);
    return found == counts_.end() ? 0 : found->second;
  }
  // Each reason counted, as metadata value `import.<reason>`.
  void write_to(TraceBuilder& builder) const {
    for (const auto& [reason, count] : counts_)
      builder.set_metadata_value("import." + reason, std::to_string(count));
  }

 private:
  std::map<std::string, std::uint64_t, std::less<>> counts_;
};

}  // namespace tscope::trace
