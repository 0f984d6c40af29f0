// The caching allocator's bookkeeping over host memory: size classes, block reuse, splitting and
// merging, per-stream pools, statistics, empty_cache, and out-of-memory after releasing the cache.

#include "tscope/engine/caching_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "current_op.h"
#include "fragmented_cache.h"
#include "host_segment_source.h"
#include "scratch_folder.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/memory_snapshot.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/allocator_segments.h"
#include "tscope/trace/trace_io.h"

namespace tscope::engine {
namespace {

constexpr std::size_t kKilobyte = std::size_t{1} << 10;
constexpr std::size_t kMegabyte = std::size_t{1} << 20;

CachingAllocator make_allocator(std::optional<std::size_t> memory_bytes = std::nullopt) {
  return CachingAllocator(std::make_unique<HostSegmentSource>(memory_bytes));
}

std::uintptr_t address_of(void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

TEST(CachingAllocatorSizes, RoundsRequestsToMultiplesOf512Bytes) {
  EXPECT_EQ(CachingAllocator::rounded_size(1), 512u);
  EXPECT_EQ(CachingAllocator::rounded_size(512), 512u);
  EXPECT_EQ(CachingAllocator::rounded_size(513), 1024u);
  EXPECT_EQ(CachingAllocator::rounded_size(3 * kMegabyte + 1), 3 * kMegabyte + 512);
}

TEST(CachingAllocatorSizes, SmallRequestsShareTwoMegabyteSegmentsAndLargeOnesAreRounded) {
  EXPECT_EQ(CachingAllocator::segment_size_for(512), 2 * kMegabyte);
  EXPECT_EQ(CachingAllocator::segment_size_for(kMegabyte), 2 * kMegabyte);
  EXPECT_EQ(CachingAllocator::segment_size_for(kMegabyte + 512), 20 * kMegabyte);
  EXPECT_EQ(CachingAllocator::segment_size_for(10 * kMegabyte), 10 * kMegabyte);
  EXPECT_EQ(CachingAllocator::segment_size_for(11 * kMegabyte + 512), 12 * kMegabyte);
}

TEST(CachingAllocator, ServesManySmallRequestsFromOneSegment) {
  CachingAllocator allocator = make_allocator();
  std::vector<void*> blocks;
  blocks.reserve(64);
  for (int i = 0; i < 64; ++i)
    blocks.push_back(allocator.allocate(4 * kKilobyte));
  const CachingAllocatorStats stats = allocator.caching_stats();
  EXPECT_EQ(stats.segment_allocations, 1u);
  EXPECT_EQ(stats.reserved_bytes, 2 * kMegabyte);
  EXPECT_EQ(stats.allocated_bytes, std::size_t{64} * 4 * kKilobyte);
  EXPECT_EQ(stats.live_allocations, 64u);
  for (void* block : blocks)
    allocator.deallocate(block, 4 * kKilobyte);
}

TEST(CachingAllocator, BlocksAreWritableOverTheirWholeRequest) {
  CachingAllocator allocator = make_allocator();
  auto* first = static_cast<unsigned char*>(allocator.allocate(1000));
  auto* second = static_cast<unsigned char*>(allocator.allocate(1000));
  std::fill(first, first + 1000, 0xAB);
  std::fill(second, second + 1000, 0xCD);
  EXPECT_EQ(first[999], 0xAB);
  EXPECT_GE(address_of(second) - address_of(first), 1000u);
  allocator.deallocate(first, 1000);
  allocator.deallocate(second, 1000);
}

TEST(CachingAllocator, ReusesAFreedBlockWithoutAskingTheDevice) {
  CachingAllocator allocator = make_allocator();
  void* first = allocator.allocate(3 * kMegabyte);
  allocator.deallocate(first, 3 * kMegabyte);
  void* second = allocator.allocate(3 * kMegabyte);
  EXPECT_EQ(second, first);
  EXPECT_EQ(allocator.caching_stats().segment_allocations, 1u);
  allocator.deallocate(second, 3 * kMegabyte);
}

TEST(CachingAllocator, FreedNeighboursMergeBackIntoOneBlock) {
  CachingAllocator allocator = make_allocator();
  void* a = allocator.allocate(256 * kKilobyte);
  void* b = allocator.allocate(256 * kKilobyte);
  void* c = allocator.allocate(256 * kKilobyte);
  allocator.deallocate(a, 256 * kKilobyte);
  allocator.deallocate(c, 256 * kKilobyte);
  allocator.deallocate(b, 256 * kKilobyte);
  const MemorySnapshot snapshot = allocator.snapshot();
  ASSERT_EQ(snapshot.segments.size(), 1u);
  ASSERT_EQ(snapshot.segments[0].blocks.size(), 1u);
  EXPECT_EQ(snapshot.segments[0].blocks[0].bytes, 2 * kMegabyte);
  EXPECT_FALSE(snapshot.segments[0].blocks[0].allocated);
}

TEST(CachingAllocator, MergedBlockServesALargerRequestFromTheSameSegment) {
  CachingAllocator allocator = make_allocator();
  void* a = allocator.allocate(512 * kKilobyte);
  void* b = allocator.allocate(512 * kKilobyte);
  allocator.deallocate(a, 512 * kKilobyte);
  allocator.deallocate(b, 512 * kKilobyte);
  void* merged = allocator.allocate(kMegabyte);
  EXPECT_EQ(merged, a);
  EXPECT_EQ(allocator.caching_stats().segment_allocations, 1u);
  allocator.deallocate(merged, kMegabyte);
}

TEST(CachingAllocator, FreeHolesInUsedSegmentsCountAsInactiveSplitBytes) {
  CachingAllocator allocator = make_allocator();
  void* a = allocator.allocate(512 * kKilobyte);
  void* b = allocator.allocate(512 * kKilobyte);
  allocator.deallocate(a, 512 * kKilobyte);
  // The hole where `a` was plus the untouched tail of the segment.
  EXPECT_EQ(allocator.caching_stats().inactive_split_bytes, 2 * kMegabyte - 512 * kKilobyte);
  allocator.deallocate(b, 512 * kKilobyte);
  EXPECT_EQ(allocator.caching_stats().inactive_split_bytes, 0u);
}

TEST(CachingAllocator, LargeBlockKeepsASmallRemainderUnsplit) {
  CachingAllocator allocator = make_allocator();
  // 19.5 MiB of a 20 MiB segment leaves 0.5 MiB: too little to split off a large block.
  void* block = allocator.allocate(19 * kMegabyte + 512 * kKilobyte);
  const MemorySnapshot snapshot = allocator.snapshot();
  ASSERT_EQ(snapshot.segments.size(), 1u);
  EXPECT_EQ(snapshot.segments[0].blocks.size(), 1u);
  EXPECT_EQ(allocator.caching_stats().allocated_bytes, 20 * kMegabyte);
  allocator.deallocate(block, 19 * kMegabyte + 512 * kKilobyte);
}

TEST(CachingAllocator, BlocksAreReusedOnlyOnTheStreamTheyWereAllocatedFor) {
  CachingAllocator allocator = make_allocator();
  constexpr StreamId kCompute = 0x10;
  constexpr StreamId kCopy = 0x20;
  void* on_compute = allocator.allocate_on_stream(64 * kKilobyte, kCompute);
  allocator.deallocate(on_compute, 64 * kKilobyte);
  void* on_copy = allocator.allocate_on_stream(64 * kKilobyte, kCopy);
  EXPECT_NE(on_copy, on_compute);
  EXPECT_EQ(allocator.caching_stats().segment_allocations, 2u);
  void* again_on_compute = allocator.allocate_on_stream(64 * kKilobyte, kCompute);
  EXPECT_EQ(again_on_compute, on_compute);
  allocator.deallocate(on_copy, 64 * kKilobyte);
  allocator.deallocate(again_on_compute, 64 * kKilobyte);
}

TEST(CachingAllocator, AllocateUsesTheCallersCurrentStream) {
  StreamId current = 0x10;
  CachingAllocator allocator(std::make_unique<HostSegmentSource>(), [&] { return current; });
  void* first = allocator.allocate(kKilobyte);
  const MemorySnapshot snapshot = allocator.snapshot();
  ASSERT_EQ(snapshot.segments.size(), 1u);
  EXPECT_EQ(snapshot.segments[0].stream, 0x10u);
  allocator.deallocate(first, kKilobyte);
}

TEST(CachingAllocator, PeaksSurviveFreesUntilReset) {
  CachingAllocator allocator = make_allocator();
  void* block = allocator.allocate(4 * kMegabyte);
  allocator.deallocate(block, 4 * kMegabyte);
  CachingAllocatorStats stats = allocator.caching_stats();
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.peak_allocated_bytes, 4 * kMegabyte);
  EXPECT_EQ(stats.peak_reserved_bytes, 20 * kMegabyte);
  allocator.empty_cache();
  allocator.reset_peak_stats();
  stats = allocator.caching_stats();
  EXPECT_EQ(stats.peak_allocated_bytes, 0u);
  EXPECT_EQ(stats.peak_reserved_bytes, 0u);
}

TEST(CachingAllocator, EmptyCacheReturnsOnlyWhollyFreeSegments) {
  CachingAllocator allocator = make_allocator();
  void* kept = allocator.allocate(kKilobyte);
  void* released = allocator.allocate(4 * kMegabyte);
  allocator.deallocate(released, 4 * kMegabyte);
  allocator.empty_cache();
  const CachingAllocatorStats stats = allocator.caching_stats();
  EXPECT_EQ(stats.segments, 1u);
  EXPECT_EQ(stats.reserved_bytes, 2 * kMegabyte);
  allocator.deallocate(kept, kKilobyte);
}

TEST(CachingAllocator, ReleasesTheCacheAndRetriesWhenTheDeviceIsFull) {
  // The device holds 32 MiB: the cached 20 MiB segment must go before a 22 MiB one fits.
  CachingAllocator allocator = make_allocator(32 * kMegabyte);
  void* block = allocator.allocate(4 * kMegabyte);
  allocator.deallocate(block, 4 * kMegabyte);
  void* big = allocator.allocate(22 * kMegabyte);
  const CachingAllocatorStats stats = allocator.caching_stats();
  EXPECT_EQ(stats.retries, 1u);
  EXPECT_EQ(stats.out_of_memory_count, 0u);
  EXPECT_EQ(stats.reserved_bytes, 22 * kMegabyte);
  allocator.deallocate(big, 22 * kMegabyte);
}

TEST(CachingAllocator, CapacityCapRaisesOutOfMemoryWithASnapshotOfOwners) {
  CachingAllocator allocator = make_allocator();
  allocator.set_capacity(16 * kMegabyte);
  void* held = nullptr;
  {
    const CurrentOpScope scope("matmul");
    held = allocator.allocate(12 * kMegabyte);
  }
  try {
    allocator.allocate(12 * kMegabyte);
    FAIL() << "a request past the cap was served";
  } catch (const DeviceOutOfMemory& error) {
    EXPECT_EQ(error.requested_bytes(), 12 * kMegabyte);
    EXPECT_EQ(error.capacity_bytes(), 16 * kMegabyte);
    ASSERT_EQ(error.snapshot().segments.size(), 1u);
    const BlockSnapshot& block = error.snapshot().segments[0].blocks.at(0);
    EXPECT_TRUE(block.allocated);
    EXPECT_EQ(block.owner_op, "matmul");
    EXPECT_EQ(block.requested_bytes, 12 * kMegabyte);
    ASSERT_EQ(error.live_allocations().size(), 1u);
    EXPECT_EQ(error.live_allocations()[0].op_name, "matmul");
    EXPECT_NE(std::string(error.what()).find("matmul"), std::string::npos);
  }
  const CachingAllocatorStats stats = allocator.caching_stats();
  EXPECT_EQ(stats.out_of_memory_count, 1u);
  EXPECT_EQ(stats.retries, 1u);
  allocator.deallocate(held, 12 * kMegabyte);
}

// Every instant named `name` in `recorded`: its numeric arguments, in time order.
std::vector<std::map<std::string, std::int64_t>> all_instant_arguments(const trace::Trace& recorded,
                                                                       std::string_view name) {
  // Ordered by time; instants of one time stay in the order they were found.
  std::multimap<trace::TimeNs, std::map<std::string, std::int64_t>> found;
  for (std::uint32_t track = 0; track < recorded.tracks().size(); ++track) {
    const trace::InstantColumns& instants = recorded.track(track).instants();
    for (std::size_t i = 0; i < instants.size(); ++i) {
      if (recorded.string(instants.name[i]) != name) continue;
      std::map<std::string, std::int64_t> arguments;
      for (const trace::Arg& arg : recorded.args(instants.args[i])) {
        if (const auto* value = std::get_if<std::int64_t>(&arg.value))
          arguments[std::string(recorded.string(arg.key))] = *value;
      }
      found.emplace(instants.time[i], std::move(arguments));
    }
  }
  std::vector<std::map<std::string, std::int64_t>> arguments;
  arguments.reserve(found.size());
  for (auto& [time, values] : found)
    arguments.push_back(std::move(values));
  return arguments;
}

// The numeric arguments of the first instant named `name` in `recorded`.
std::map<std::string, std::int64_t> instant_arguments(const trace::Trace& recorded,
                                                      std::string_view name) {
  auto all = all_instant_arguments(recorded, name);
  return all.empty() ? std::map<std::string, std::int64_t>{} : std::move(all.front());
}

// What a profiler session records while `work` runs, through a temporary .tsc named for `name`.
trace::Trace record_session(const std::string& name, const std::function<void()>& work) {
  const std::filesystem::path output = tscope::testing::scratch_path(name + ".tsc");
  profiler::Session session({.output = output, .sample_process_counters = false});
  session.start();
  work();
  session.stop();
  trace::Trace recorded = trace::load_trace(output);
  std::filesystem::remove(output);
  return recorded;
}

TEST(CachingAllocator, OutOfMemoryAndEveryBlockAreRecordedInTheTrace) {
  CachingAllocator allocator = make_allocator();
  allocator.set_capacity(16 * kMegabyte);
  const trace::Trace recorded = record_session("caching_allocator", [&] {
    void* held = allocator.allocate(12 * kMegabyte);
    EXPECT_THROW(allocator.allocate(12 * kMegabyte), DeviceOutOfMemory);
    allocator.deallocate(held, 12 * kMegabyte);
  });

  const auto oom = instant_arguments(recorded, "out of memory");
  EXPECT_EQ(oom.at("requested_bytes"), static_cast<std::int64_t>(12 * kMegabyte));
  EXPECT_EQ(oom.at("limit_bytes"), static_cast<std::int64_t>(16 * kMegabyte));
  EXPECT_EQ(oom.at("allocated_bytes"), static_cast<std::int64_t>(12 * kMegabyte));
  std::vector<std::uint64_t> reserved_after_each;
  for (std::uint32_t track = 0; track < recorded.tracks().size(); ++track) {
    const trace::MemoryColumns& memory = recorded.track(track).memory();
    for (std::size_t i = 0; i < memory.size(); ++i) {
      reserved_after_each.push_back(memory.total_reserved(i));
    }
  }
  // The allocation and the free, both with the 12 MiB segment still reserved (it is cached).
  EXPECT_EQ(reserved_after_each, (std::vector<std::uint64_t>{12 * kMegabyte, 12 * kMegabyte}));
}

TEST(CachingAllocator, EverySegmentTakenAndGivenBackIsRecordedWithItsBlocksInside) {
  CachingAllocator allocator = make_allocator();
  void* small = nullptr;
  void* large = nullptr;
  const trace::Trace recorded = record_session("caching_allocator_segments", [&] {
    small = allocator.allocate(4 * kKilobyte);
    large = allocator.allocate(12 * kMegabyte);
    allocator.deallocate(small, 4 * kKilobyte);
    allocator.deallocate(large, 12 * kMegabyte);
    allocator.empty_cache();
  });

  const auto taken = all_instant_arguments(recorded, trace::kSegmentAllocInstant);
  const auto given_back = all_instant_arguments(recorded, trace::kSegmentFreeInstant);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].at("bytes"), static_cast<std::int64_t>(2 * kMegabyte));
  EXPECT_EQ(taken[1].at("bytes"), static_cast<std::int64_t>(12 * kMegabyte));
  EXPECT_EQ(taken[0].at("device"), -1) << "host memory";
  ASSERT_EQ(given_back.size(), 2u);
  std::map<std::int64_t, std::int64_t> freed_bytes;
  for (const auto& segment : given_back)
    freed_bytes[segment.at("address")] = segment.at("bytes");
  // Each block's memory event lies inside the segment it was cut from.
  std::vector<std::uintptr_t> block_addresses = {address_of(small), address_of(large)};
  for (std::size_t index = 0; index < 2; ++index) {
    const auto segment_start = static_cast<std::uintptr_t>(taken[index].at("address"));
    const auto segment_bytes = static_cast<std::uintptr_t>(taken[index].at("bytes"));
    EXPECT_GE(block_addresses[index], segment_start);
    EXPECT_LT(block_addresses[index], segment_start + segment_bytes);
    EXPECT_EQ(freed_bytes.at(taken[index].at("address")), taken[index].at("bytes"));
  }
  std::size_t memory_events = 0;
  for (const trace::Track& track : recorded.tracks())
    memory_events += track.memory().size();
  EXPECT_EQ(memory_events, 4u);
}

TEST(CachingAllocator, FragmentedOutOfMemoryRecordsTheLargestFreeBlockAndTheSegmentLayout) {
  CachingAllocator allocator = make_allocator();
  allocator.set_capacity(20 * kMegabyte);
  const trace::Trace recorded = record_session("caching_allocator_fragmented", [&] {
    void* middle = testing::run_out_of_memory_in_fragmented_segment(allocator);
    EXPECT_NE(middle, nullptr) << "the 14 MiB request was served";
    if (middle != nullptr) allocator.deallocate(middle, 4 * kMegabyte);
  });

  const auto oom = instant_arguments(recorded, "out of memory");
  EXPECT_EQ(oom.at("allocated_bytes"), static_cast<std::int64_t>(4 * kMegabyte));
  EXPECT_EQ(oom.at("reserved_bytes"), static_cast<std::int64_t>(20 * kMegabyte));
  EXPECT_EQ(oom.at("largest_free_block_bytes"), static_cast<std::int64_t>(12 * kMegabyte));
  const auto segment = instant_arguments(recorded, CachingAllocator::kSegmentInstantName);
  EXPECT_EQ(segment.at("segment_bytes"), static_cast<std::int64_t>(20 * kMegabyte));
  EXPECT_EQ(segment.at("allocated_bytes"), static_cast<std::int64_t>(4 * kMegabyte));
  EXPECT_EQ(segment.at("largest_free_bytes"), static_cast<std::int64_t>(12 * kMegabyte));
  EXPECT_EQ(segment.at("blocks"), 3);
}

TEST(CachingAllocator, OutOfMemoryNamesTheOutermostOpAndTheKernelThatAsked) {
  CachingAllocator allocator = make_allocator();
  allocator.set_capacity(kMegabyte);
  const CurrentOpScope outer("conv2d");
  const CurrentOpScope inner("im2col");
  try {
    allocator.allocate(4 * kMegabyte);
    FAIL() << "a request past the cap was served";
  } catch (const DeviceOutOfMemory& error) {
    EXPECT_EQ(error.requesting_op(), "conv2d");
    EXPECT_EQ(error.inner_op(), "im2col");
  }
}

TEST(CachingAllocator, OutOfMemoryLeavesTheAllocatorUsable) {
  CachingAllocator allocator = make_allocator();
  allocator.set_capacity(2 * kMegabyte);
  EXPECT_THROW(allocator.allocate(3 * kMegabyte), DeviceOutOfMemory);
  void* block = allocator.allocate(kMegabyte);
  EXPECT_NE(block, nullptr);
  EXPECT_EQ(allocator.caching_stats().allocated_bytes, kMegabyte);
  allocator.deallocate(block, kMegabyte);
}

TEST(CachingAllocator, FreeingAnUnknownAddressIsAnError) {
  CachingAllocator allocator = make_allocator();
  int not_from_it = 0;
  EXPECT_THROW(allocator.deallocate(&not_from_it, sizeof(not_from_it)), EngineError);
}

TEST(CachingAllocator, ZeroByteRequestsTakeNoMemory) {
  CachingAllocator allocator = make_allocator();
  EXPECT_EQ(allocator.allocate(0), nullptr);
  allocator.deallocate(nullptr, 0);
  EXPECT_EQ(allocator.caching_stats().reserved_bytes, 0u);
}

}  // namespace
}  // namespace tscope::engine
