#pragma once
// How far the load of a large trace has got, reported by a reader as it goes so that a command
// line or a viewer can show it.

#include <cstdint>
#include <functional>

namespace tscope::trace {

struct LoadProgress {
  std::uint64_t bytes_read = 0;   // of the file as stored (compressed bytes for gzip)
  std::uint64_t bytes_total = 0;  // the file's size, 0 when unknown
  std::uint64_t events = 0;       // events read so far
};

// Called from the loading thread, a few times per second of loading at most as often as the
// reader finishes a window of its input; an empty function reports nothing.
using LoadProgressCallback = std::function<void(const LoadProgress&)>;

}  // namespace tscope::trace
