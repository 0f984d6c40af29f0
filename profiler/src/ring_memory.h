#pragma once
// The memory under a per-thread event ring: anonymous pages the kernel is asked to back with
// transparent huge pages. A ring is written front to back, lap after lap, so with 4 KiB pages
// every 4 KiB of records costs a TLB miss once the ring outgrows the TLB's reach; with 2 MiB
// pages a 4 MiB ring is two TLB entries. On the 2-vCPU Xeon VM of docs/PERFORMANCE.md a range
// into a 256 MiB ring took 41 to 51 ns with 4 KiB pages and 29 to 30 ns with huge pages
// (BM_RangeEnabled, medians of four runs each), and the 4 KiB runs scattered from one process to
// the next by where their pages landed.

#include <cstddef>

namespace tscope::profiler {

class RingMemory {
 public:
  // At least `bytes`, uninitialised (the pages fault in as the ring first writes them). Throws
  // std::bad_alloc when the system refuses the mapping.
  explicit RingMemory(std::size_t bytes);
  ~RingMemory();
  RingMemory(const RingMemory&) = delete;
  RingMemory& operator=(const RingMemory&) = delete;

  std::byte* get() const { return bytes_; }

 private:
  std::byte* bytes_ = nullptr;
  std::size_t mapped_bytes_ = 0;
};

}  // namespace tscope::profiler
