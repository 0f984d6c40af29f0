#pragma once
// The fragmented out-of-memory both caching-allocator tests record, on the host and on a device.

#include <cstddef>

#include "current_op.h"
#include "tscope/engine/caching_allocator.h"
#include "tscope/engine/memory_snapshot.h"

namespace tscope::engine::testing {

inline constexpr std::size_t kFragmentMegabyte = std::size_t{1} << 20;

// Cuts three 4 MiB blocks from one 20 MiB segment and frees the outer two, which leaves 16 MiB
// free in holes of 4 and 12 MiB; then asks for 14 MiB inside conv2d's im2col, which fails with
// the cap at 20 MiB above what was reserved before. Returns the block still held.
inline void* run_out_of_memory_in_fragmented_segment(CachingAllocator& allocator) {
  void* first = allocator.allocate(4 * kFragmentMegabyte);
  void* middle = allocator.allocate(4 * kFragmentMegabyte);
  void* last = allocator.allocate(4 * kFragmentMegabyte);
  allocator.deallocate(first, 4 * kFragmentMegabyte);
  allocator.deallocate(last, 4 * kFragmentMegabyte);
  const CurrentOpScope outer("conv2d");
  const CurrentOpScope inner("im2col");
  try {
    allocator.allocate(14 * kFragmentMegabyte);
  } catch (const DeviceOutOfMemory&) {
    return middle;
  }
  allocator.deallocate(middle, 4 * kFragmentMegabyte);
  return nullptr;
}

}  // namespace tscope::engine::testing
