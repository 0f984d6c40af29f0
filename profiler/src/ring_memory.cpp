#include "ring_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace tscope::profiler {
namespace {

// The x86-64 and AArch64 (4 KiB granule) huge page size. A ring smaller than one huge page
// stays on ordinary pages, since the kernel would not back it with a huge page anyway.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

}  // namespace

RingMemory::RingMemory(std::size_t bytes) {
  if (bytes < kHugePageBytes) {
    mapped_bytes_ = bytes;
    void* mapping =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) throw std::bad_alloc();
    bytes_ = static_cast<std::byte*>(mapping);
    return;
  }
  // A huge page must start on a huge-page boundary: map one huge page more than needed and
  // unmap the slack before and after the aligned stretch.
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::size_t padded = rounded + kHugePageBytes;
  void* mapping = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapping);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::size_t before = aligned - start;
  const std::size_t after = padded - before - rounded;
  // Unmapping part of a private anonymous mapping cannot fail for lack of memory; a failure
  // would only leave the slack mapped, which costs address space and no pages.
  if (before != 0) static_cast<void>(munmap(mapping, before));
  if (after != 0) static_cast<void>(munmap(reinterpret_cast<void*>(aligned + rounded), after));
  bytes_ = reinterpret_cast<std::byte*>(aligned);
  mapped_bytes_ = rounded;
  // Advice only: where transparent huge pages are off (or the kernel predates them) the ring
  // works on ordinary pages, more slowly, so a refusal is not an error.
  static_cast<void>(madvise(bytes_, mapped_bytes_, MADV_HUGEPAGE));
}

RingMemory::~RingMemory() {
  static_cast<void>(munmap(bytes_, mapped_bytes_));
}

}  // namespace tscope::profiler
