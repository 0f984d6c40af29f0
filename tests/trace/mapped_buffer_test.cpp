// MappedBytes and MappedArray: mapped memory that starts as zero bytes, keeps its contents as it
// grows (at least doubling), moves without copying and is handed back when dropped.

#include "mapped_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace tscope::trace {
namespace {

TEST(MappedBufferTest, StartsAsZeroBytesAndKeepsItsContentsAsItGrows) {
  MappedArray<std::uint64_t> values;
  EXPECT_EQ(values.capacity(), 0u);
  values.reserve(3);
  ASSERT_GE(values.capacity(), 3u);
  EXPECT_EQ(values[0], 0u);
  for (std::size_t index = 0; index < values.capacity(); ++index)
    values[index] = index * 7;
  const std::size_t filled = values.capacity();
  values.reserve(filled + 1);
  EXPECT_GE(values.capacity(), 2 * filled);
  for (std::size_t index = 0; index < filled; ++index)
    ASSERT_EQ(values[index], index * 7) << index;
  EXPECT_EQ(values[filled], 0u);
}

TEST(MappedBufferTest, ReservingLessKeepsTheMapping) {
  MappedArray<char> bytes;
  bytes.reserve(10000);
  const char* const data = bytes.data();
  const std::size_t capacity = bytes.capacity();
  bytes.reserve(10);
  EXPECT_EQ(bytes.data(), data);
  EXPECT_EQ(bytes.capacity(), capacity);
}

TEST(MappedBufferTest, AMoveHandsTheMappingOver) {
  MappedArray<int> first;
  first.reserve(100);
  first[99] = 42;
  MappedArray<int> second = std::move(first);
  EXPECT_EQ(second[99], 42);
  EXPECT_EQ(first.capacity(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from buffer is empty
  first = std::move(second);
  EXPECT_EQ(first[99], 42);
}

TEST(MappedBufferTest, ASizeBeyondTheAddressSpaceThrowsBadAlloc) {
  MappedArray<std::uint64_t> values;
  // 2^62 bytes: more than a process can map.
  EXPECT_THROW(values.reserve(std::size_t{1} << 59), std::bad_alloc);
  // A count whose bytes overflow size_t.
  EXPECT_THROW(values.reserve(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
  EXPECT_EQ(values.capacity(), 0u);
}

}  // namespace
}  // namespace tscope::trace
