#include "host_segment_source.h"

#include <cstdlib>

namespace tscope::engine {

void* HostSegmentSource::allocate_segment(std::size_t bytes) {
  if (memory_bytes_ && (bytes > *memory_bytes_ || bytes_held_ > *memory_bytes_ - bytes)) {
    return nullptr;
  }
  // Segment sizes are multiples of 512 bytes, as aligned_alloc requires of its size.
  void* memory = std::aligned_alloc(512, bytes);
  if (memory != nullptr) bytes_held_ += bytes;
  return memory;
}

void HostSegmentSource::free_segment(void* address, std::size_t bytes) {
  std::free(address);
  bytes_held_ -= bytes;
}

}  // namespace tscope::engine
