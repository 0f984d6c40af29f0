// The CPU allocator: alignment, statistics, byte-size parsing, and the capacity cap that raises
// OutOfMemory with what was asked and who holds the memory, leaking nothing.

#include "tscope/engine/cpu_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/out_of_memory.h"

namespace tscope::engine {
namespace {

constexpr std::size_t kMegabyte = std::size_t{1} << 20;

// Puts the process-wide allocator's cap back as it was, whatever the test did.
class CappedCpuAllocator : public ::testing::Test {
 protected:
  void SetUp() override { saved_capacity_ = cpu_allocator().capacity(); }
  void TearDown() override { cpu_allocator().set_capacity(saved_capacity_); }

  std::optional<std::size_t> saved_capacity_;
};

TEST(ParseByteSize, AcceptsPlainBytesAndBinarySuffixes) {
  EXPECT_EQ(parse_byte_size("65536", "test"), 65536u);
  EXPECT_EQ(parse_byte_size("4k", "test"), 4096u);
  EXPECT_EQ(parse_byte_size("512M", "test"), 512 * kMegabyte);
  EXPECT_EQ(parse_byte_size("2G", "test"), 2048 * kMegabyte);
  EXPECT_EQ(parse_byte_size("3GB", "test"), 3072 * kMegabyte);
}

TEST(ParseByteSize, RejectsMalformedTextQuotingIt) {
  for (const char* text : {"", "M", "-5", "1.5G", "12Q", "10 M", "99999999999999999999"}) {
    try {
      parse_byte_size(text, "TSCOPE_CPU_MEMORY_CAP");
      FAIL() << "accepted \"" << text << "\"";
    } catch (const EngineError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("TSCOPE_CPU_MEMORY_CAP"), std::string::npos);
      EXPECT_NE(message.find("\"" + std::string(text) + "\""), std::string::npos);
    }
  }
}

TEST(CpuAllocatorEnvironment, CapComesFromTheEnvironmentVariable) {
  ASSERT_EQ(setenv("TSCOPE_CPU_MEMORY_CAP", "256M", 1), 0);
  EXPECT_EQ(capacity_from_environment(), 256 * kMegabyte);
  ASSERT_EQ(setenv("TSCOPE_CPU_MEMORY_CAP", "lots", 1), 0);
  EXPECT_THROW(capacity_from_environment(), EngineError);
  ASSERT_EQ(unsetenv("TSCOPE_CPU_MEMORY_CAP"), 0);
  EXPECT_EQ(capacity_from_environment(), std::nullopt);
}

TEST(CpuAllocator, BlocksAreSixtyFourByteAligned) {
  CpuAllocator allocator;
  for (const std::size_t bytes : {1u, 3u, 100u, 4097u}) {
    void* block = allocator.allocate(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % CpuAllocator::kAlignment, 0u);
    allocator.deallocate(block, bytes);
  }
}

TEST(CpuAllocator, StatisticsTrackUsePeakCountAndLiveBlocks) {
  CpuAllocator allocator;
  void* first = allocator.allocate(1000);
  void* second = allocator.allocate(500);
  allocator.deallocate(first, 1000);
  const AllocatorStats stats = allocator.stats();
  EXPECT_EQ(stats.bytes_in_use, 500u);
  EXPECT_EQ(stats.peak_bytes_in_use, 1500u);
  EXPECT_EQ(stats.allocation_count, 2u);
  EXPECT_EQ(stats.live_allocations, 1u);
  allocator.deallocate(second, 500);
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
}

TEST(CpuAllocator, AFreedBlockServesTheNextRequestOfItsRoundedSize) {
  CpuAllocator allocator;
  void* first = allocator.allocate(1000);
  allocator.deallocate(first, 1000);
  EXPECT_EQ(allocator.cached_bytes(), 1024u);
  EXPECT_EQ(allocator.allocate(1020), first);
  EXPECT_EQ(allocator.cached_bytes(), 0u);
  void* other_size = allocator.allocate(5000);
  EXPECT_NE(other_size, first);
  allocator.deallocate(other_size, 5000);
  allocator.deallocate(first, 1020);
  EXPECT_EQ(allocator.stats().bytes_in_use, 0u);
}

TEST(CpuAllocator, CountsItsSystemCallsAndReusesTheNodesOfItsTables) {
  CpuAllocator allocator;
  const auto allocate_mix = [&] {
    std::vector<void*> blocks;
    for (std::size_t i = 1; i <= 200; ++i)
      blocks.push_back(allocator.allocate(i * 64));
    for (std::size_t i = 1; i <= 200; ++i)
      allocator.deallocate(blocks[i - 1], i * 64);
  };
  allocate_mix();
  const SystemCalls first = allocator.system_calls();
  EXPECT_EQ(first.allocations, 200u);
  EXPECT_EQ(first.frees, 0u);
  EXPECT_GT(first.table_allocations, 0u);
  // The second round may still grow the node pool's own bookkeeping once; from then on the same
  // mix is served from the cache and the pool alone.
  allocate_mix();
  const SystemCalls second = allocator.system_calls();
  allocate_mix();
  const SystemCalls third = allocator.system_calls();
  EXPECT_EQ(third.allocations, first.allocations);
  EXPECT_EQ(third.table_allocations, second.table_allocations);
  allocator.empty_cache();
  EXPECT_EQ(allocator.system_calls().frees, 200u);
}

TEST(CpuAllocator, BlocksPastTheCacheLimitGoBackToTheSystem) {
  CpuAllocator allocator;
  allocator.set_cache_limit(2048);
  void* first = allocator.allocate(1024);
  void* second = allocator.allocate(1024);
  void* third = allocator.allocate(1024);
  allocator.deallocate(first, 1024);
  allocator.deallocate(second, 1024);
  allocator.deallocate(third, 1024);
  EXPECT_EQ(allocator.cached_bytes(), 2048u);
  allocator.empty_cache();
  EXPECT_EQ(allocator.cached_bytes(), 0u);
}

TEST(CpuAllocator, CachedBlocksAreReleasedBeforeTheCapIsPassed) {
  CpuAllocator allocator;
  allocator.set_capacity(8192);
  allocator.deallocate(allocator.allocate(6000), 6000);
  EXPECT_GT(allocator.cached_bytes(), 0u);
  // In use 0, cached 6016: a 4000-byte block fits only once the cache is gone.
  void* block = allocator.allocate(4000);
  EXPECT_EQ(allocator.cached_bytes(), 0u);
  allocator.deallocate(block, 4000);
}

TEST(CpuAllocator, ARequestPastTheCapThrowsWithRequestCapAndUse) {
  CpuAllocator allocator;
  allocator.set_capacity(4096);
  void* held = allocator.allocate(3000);
  try {
    allocator.allocate(2000);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& error) {
    EXPECT_EQ(error.requested_bytes(), 2000u);
    EXPECT_EQ(error.capacity_bytes(), 4096u);
    EXPECT_EQ(error.bytes_in_use(), 3000u);
    ASSERT_EQ(error.live_allocations().size(), 1u);
    EXPECT_EQ(error.live_allocations()[0].address, held);
    EXPECT_EQ(error.live_allocations()[0].bytes, 3000u);
  }
  EXPECT_EQ(allocator.stats().bytes_in_use, 3000u);
  allocator.deallocate(held, 3000);
}

TEST_F(CappedCpuAllocator, OutOfMemoryNamesTheOpsThatHoldTheMemory) {
  const Tensor a = ones({256, 1024});
  const Tensor held = add(a, a);
  cpu_allocator().set_capacity(cpu_allocator().stats().bytes_in_use + kMegabyte / 2);
  try {
    mul(a, a);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& error) {
    EXPECT_EQ(error.requested_bytes(), kMegabyte);
    bool found_held = false;
    for (const LiveAllocation& allocation : error.live_allocations()) {
      if (allocation.address == held.raw_data()) {
        found_held = true;
        EXPECT_EQ(allocation.op_name, "add");
        EXPECT_EQ(allocation.bytes, kMegabyte);
      }
    }
    EXPECT_TRUE(found_held);
    EXPECT_NE(std::string(error.what()).find("add"), std::string::npos);
  }
}

TEST_F(CappedCpuAllocator, OutOfMemoryNamesTheOutermostOpAndTheKernelInsideItThatAsked) {
  Generator generator(5);
  const Tensor input = randn({2, 64, 32, 32}, generator);
  const Tensor weight = randn({4, 64, 3, 3}, generator);
  // After its output (2 x 4 x 30 x 30 floats, 28 KiB), conv2d asks for an unfolded image per
  // thread (576 x 900 floats, 2 MiB each) as im2col's.
  cpu_allocator().set_capacity(cpu_allocator().stats().bytes_in_use + kMegabyte);
  try {
    conv2d(input, weight, std::nullopt);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& error) {
    EXPECT_EQ(error.requesting_op(), "conv2d");
    EXPECT_EQ(error.inner_op(), "im2col");
    EXPECT_NE(std::string(error.what()).find("out of memory in conv2d (im2col)"), std::string::npos)
        << error.what();
  }
}

TEST_F(CappedCpuAllocator, OutOfMemoryOutsideAnyOpNamesTheFactory) {
  cpu_allocator().set_capacity(cpu_allocator().stats().bytes_in_use);
  try {
    ones({1024});
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& error) {
    EXPECT_EQ(error.requesting_op(), "empty");
    EXPECT_EQ(error.inner_op(), "empty");
  }
}

TEST_F(CappedCpuAllocator, AnOutOfMemoryHalfwayThroughAnOpLeaksNothing) {
  Generator generator(3);
  const Tensor x = randn({256, 1024}, generator);
  const AllocatorStats before = cpu_allocator().stats();
  // Room for layer_norm's per-row mean and rstd but not for its output.
  cpu_allocator().set_capacity(before.bytes_in_use + kMegabyte / 2);
  EXPECT_THROW(layer_norm(x, {1024}, std::nullopt, std::nullopt), OutOfMemory);
  const AllocatorStats after = cpu_allocator().stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_allocations, before.live_allocations);
  EXPECT_GT(after.allocation_count, before.allocation_count);
}

TEST_F(CappedCpuAllocator, LiftingTheCapLetsTheSameOpSucceed) {
  const Tensor a = ones({1024});
  cpu_allocator().set_capacity(cpu_allocator().stats().bytes_in_use);
  EXPECT_THROW(add(a, a), OutOfMemory);
  cpu_allocator().set_capacity(std::nullopt);
  EXPECT_FLOAT_EQ(sum(add(a, a)).item(), 2048.0f);
}

}  // namespace
}  // namespace tscope::engine
