#pragma once
// A caching allocator for device memory: segments taken from the device are cut into blocks that
// are kept when freed and handed out again, so a steady training loop makes no device calls.
// Device-neutral: the CUDA backend supplies cudaMalloc segments, tests supply host memory. Every
// segment taken or given back is recorded as an instant, every block as a memory event.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tscope/engine/allocator.h"
#include "tscope/engine/memory_snapshot.h"

namespace tscope::engine {

// A stream as an integer (a cudaStream_t's value); 0 is the device's default stream.
using StreamId = std::uintptr_t;

// Where the caching allocator gets whole segments from and gives them back to.
class SegmentSource {
 public:
  virtual ~SegmentSource() = default;
  // Null when the device has no memory for it: the allocator then releases its cache and retries.
  virtual void* allocate_segment(std::size_t bytes) = 0;
  virtual void free_segment(void* address, std::size_t bytes) = 0;
  virtual Device device() const = 0;
};

struct CachingAllocatorStats {
  std::size_t allocated_bytes = 0;  // handed out to callers, rounded to block sizes
  std::size_t peak_allocated_bytes = 0;
  std::size_t reserved_bytes = 0;  // taken from the device as segments
  std::size_t peak_reserved_bytes = 0;
  // Free bytes inside segments that also hold live blocks: memory fragmentation keeps from
  // being returned or used for larger requests.
  std::size_t inactive_split_bytes = 0;
  std::size_t live_allocations = 0;
  std::size_t segments = 0;
  std::uint64_t allocation_count = 0;
  std::uint64_t segment_allocations = 0;  // device calls made, the count caching keeps low
  std::uint64_t retries = 0;              // times a failed segment request released the cache
  std::uint64_t out_of_memory_count = 0;
};

class CachingAllocator final : public Allocator {
 public:
  // Requests are rounded up to this many bytes.
  static constexpr std::size_t kMinBlockBytes = 512;
  // On out of memory each segment is recorded as an instant of this name (address, segment_bytes,
  // allocated_bytes, largest_free_bytes, blocks), just before the "out of memory" instant.
  static constexpr std::string_view kSegmentInstantName = "allocator segment";
  // Requests up to this size come from the small pool, cut from kSmallSegmentBytes segments.
  static constexpr std::size_t kSmallRequestBytes = std::size_t{1} << 20;
  static constexpr std::size_t kSmallSegmentBytes = std::size_t{2} << 20;
  // Large requests under kMinLargeSegmentRequest share kLargeSegmentBytes segments; bigger ones
  // get a segment of their own, rounded up to kLargeRounding.
  static constexpr std::size_t kMinLargeSegmentRequest = std::size_t{10} << 20;
  static constexpr std::size_t kLargeSegmentBytes = std::size_t{20} << 20;
  static constexpr std::size_t kLargeRounding = std::size_t{2} << 20;

  // `current_stream` names the stream the calling thread allocates for; blocks are reused only
  // on the stream they were allocated for, which keeps reuse safe without synchronisation.
  explicit CachingAllocator(
      std::unique_ptr<SegmentSource> source,
      std::function<StreamId()> current_stream = [] { return StreamId{0}; });
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Returns every segment, live blocks included: destroy it only when its tensors are gone.
  ~CachingAllocator() override;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* address, std::size_t bytes) override;
  AllocatorStats stats() const override;
  Device device() const override;

  void* allocate_on_stream(std::size_t bytes, StreamId stream);
  CachingAllocatorStats caching_stats() const;
  MemorySnapshot snapshot() const;
  // Returns every wholly free segment to the device.
  void empty_cache();
  // Caps reserved bytes (no cap when empty), so out-of-memory can be reproduced on a large device.
  void set_capacity(std::optional<std::size_t> capacity_bytes);
  std::optional<std::size_t> capacity() const;
  void reset_peak_stats();

  // The size a request is served with, and the segment a cache miss for it asks the device for.
  static std::size_t rounded_size(std::size_t bytes);
  static std::size_t segment_size_for(std::size_t rounded_bytes);

 private:
  struct Block {
    std::uintptr_t address = 0;
    std::size_t bytes = 0;
    std::size_t requested_bytes = 0;
    StreamId stream = 0;
    bool small_pool = false;
    bool allocated = false;
    Block* previous = nullptr;  // neighbours in the same segment
    Block* next = nullptr;
    std::string owner_op;
    bool is_split() const { return previous != nullptr || next != nullptr; }
  };
  // Best fit: the smallest block of the stream that is large enough, lowest address first.
  struct BlockOrder {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockOrder>;

  Pool& pool_for(bool small_pool) { return small_pool ? small_blocks_ : large_blocks_; }
  Block* take_cached_block(std::size_t bytes, StreamId stream, bool small_pool);
  Block* allocate_segment(std::size_t bytes, StreamId stream, bool small_pool);
  void split(Block* block, std::size_t bytes);
  void release_free_segments();
  MemorySnapshot snapshot_locked() const;
  [[noreturn]] void throw_out_of_memory(std::size_t bytes);
  void record_memory_event(bool allocation, const Block& block) const;
  // A segment reserved from or given back to the source, as trace/allocator_segments.h says.
  void record_segment_event(std::string_view name, const Block& segment) const;

  std::unique_ptr<SegmentSource> source_;
  std::function<StreamId()> current_stream_;
  mutable std::mutex mutex_;
  std::optional<std::size_t> capacity_;
  Pool small_blocks_;
  Pool large_blocks_;
  std::unordered_map<std::uintptr_t, Block*> live_blocks_;
  // Each segment's first block, which lives as long as the segment: merging keeps the lower one.
  std::map<std::uintptr_t, Block*> segments_;
  CachingAllocatorStats stats_;
};

}  // namespace tscope::engine
