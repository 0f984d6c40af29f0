// The memory under an event ring: every byte asked for is writable and keeps what was written,
// and a ring of at least one huge page starts on a huge-page boundary, which is what lets the
// kernel back it with huge pages at all.

#include "ring_memory.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace tscope::profiler {
namespace {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Writes a pattern over [0, bytes) and reads it back.
bool holds_a_pattern(const RingMemory& memory, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; i += 1024)
    memory.get()[i] = static_cast<std::byte>(i >> 10);
  memory.get()[bytes - 1] = std::byte{0x5a};
  for (std::size_t i = 0; i < bytes; i += 1024) {
    if (memory.get()[i] != static_cast<std::byte>(i >> 10)) return false;
  }
  return memory.get()[bytes - 1] == std::byte{0x5a};
}

TEST(RingMemory, SmallRingIsWritableEndToEnd) {
  constexpr std::size_t kBytes = std::size_t{64} << 10;
  const RingMemory memory(kBytes);
  EXPECT_TRUE(holds_a_pattern(memory, kBytes));
}

TEST(RingMemory, LargeRingStartsOnAHugePageBoundary) {
  for (const std::size_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 4096, 4 * kHugePageBytes}) {
    const RingMemory memory(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(memory.get()) % kHugePageBytes, 0U) << bytes;
    EXPECT_TRUE(holds_a_pattern(memory, bytes)) << bytes;
  }
}

TEST(RingMemory, ManyRingsComeAndGo) {
  // Mapping and unmapping the slack around each ring leaks nothing a loop would exhaust.
  for (int ring = 0; ring < 2000; ++ring) {
    const RingMemory memory(4 * kHugePageBytes);
    memory.get()[0] = std::byte{1};
  }
  SUCCEED();
}

}  // namespace
}  // namespace tscope::profiler
