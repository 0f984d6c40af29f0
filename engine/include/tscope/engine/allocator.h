#pragma once
// The interface every device's memory allocator implements, its statistics, and the table that
// finds the allocator of a device.

#include <cstddef>
#include <cstdint>

#include "tscope/engine/device.h"

namespace tscope::engine {

struct AllocatorStats {
  std::size_t bytes_in_use = 0;
  std::size_t peak_bytes_in_use = 0;
  std::uint64_t allocation_count = 0;  // allocations served since start (or the last reset)
  std::size_t live_allocations = 0;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Returns memory for `bytes` bytes, or throws OutOfMemory; a zero-byte request may return null.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* address, std::size_t bytes) = 0;
  virtual AllocatorStats stats() const = 0;
  virtual Device device() const = 0;
};

// The allocator tensors on `device` take their storage from. The CPU allocator is always there;
// other backends register theirs when they initialise.
Allocator& allocator_for(Device device);
void register_allocator(Device device, Allocator& allocator);

}  // namespace tscope::engine
