#pragma once
// A trace the engine's caching allocator records over host memory (as its own tests run it), for
// the segments view: three 4 KiB blocks in a 2 MiB small-pool segment and a 12 MiB block in a
// segment of its own; then one small block and the large one freed and the cache emptied, so the
// 12 MiB segment is given back and the small one stays, two of its blocks allocated.

#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include "host_segment_source.h"
#include "tscope/engine/caching_allocator.h"
#include "tscope/profiler/session.h"

namespace tscope::testing {

inline constexpr std::size_t kAllocatorKiB = std::size_t{1} << 10;
inline constexpr std::size_t kAllocatorMiB = std::size_t{1} << 20;

inline void record_allocator_segments(const std::filesystem::path& output) {
  engine::CachingAllocator allocator(std::make_unique<engine::HostSegmentSource>());
  profiler::Session session({.output = output, .sample_process_counters = false});
  session.start();
  void* first = allocator.allocate(4 * kAllocatorKiB);
  void* second = allocator.allocate(4 * kAllocatorKiB);
  void* third = allocator.allocate(4 * kAllocatorKiB);
  void* large = allocator.allocate(12 * kAllocatorMiB);
  // The large block alive for 10 ms, then its segment cached and empty for 10 ms: a view of the
  // segment's life shows both in shares that the allocator's own calls cannot upset, however long
  // a build takes for them (the sanitizers' take and give back 12 MiB far slower).
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  allocator.deallocate(second, 4 * kAllocatorKiB);
  allocator.deallocate(large, 12 * kAllocatorMiB);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  allocator.empty_cache();
  session.stop();
  allocator.deallocate(first, 4 * kAllocatorKiB);
  allocator.deallocate(third, 4 * kAllocatorKiB);
}

}  // namespace tscope::testing
