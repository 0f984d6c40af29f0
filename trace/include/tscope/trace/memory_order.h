#pragma once
// Every memory event of every pool of a trace in one time order, as the analyses' memory replays
// and the viewer's memory panel walk them: same-time events keep their recorded order (pool by
// pool in track order, then by index within a pool).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// One memory event of the merged stream.
struct MemoryStep {
  TimeNs time = 0;
  std::uint32_t track = 0;
  std::uint32_t index = 0;
};

// Refers to `trace`, which must outlive it. When one pool holds every event, in order, that pool's
// columns are the order and no index is kept (16 bytes per event otherwise).
class MemoryOrder {
 public:
  explicit MemoryOrder(const Trace& trace);

  std::size_t size() const { return only_track_ != kNoIndex ? only_size_ : steps_.size(); }
  bool empty() const { return size() == 0; }
  MemoryStep at(std::size_t position) const;

 private:
  const Trace* trace_;
  std::uint32_t only_track_ = kNoIndex;
  std::size_t only_size_ = 0;
  std::vector<MemoryStep> steps_;
};

}  // namespace tscope::trace
