#pragma once
// Segments of host memory for the caching allocator, with an optional size that plays the part
// of a device's memory: the allocator's bookkeeping runs on any machine, no GPU needed.

#include <cstddef>
#include <optional>

#include "tscope/engine/caching_allocator.h"

namespace tscope::engine {

class HostSegmentSource final : public SegmentSource {
 public:
  // With `memory_bytes`, a segment that would take the total past it is refused, as a full
  // device refuses cudaMalloc.
  explicit HostSegmentSource(std::optional<std::size_t> memory_bytes = std::nullopt)
      : memory_bytes_(memory_bytes) {}

  void* allocate_segment(std::size_t bytes) override;
  void free_segment(void* address, std::size_t bytes) override;
  Device device() const override { return Device::cpu(); }

 private:
  std::optional<std::size_t> memory_bytes_;
  std::size_t bytes_held_ = 0;
};

}  // namespace tscope::engine
