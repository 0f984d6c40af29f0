#pragma once
// Host memory for tensors: 64-byte aligned blocks with statistics and an optional capacity cap,
// so an out-of-memory failure can be reproduced (and analysed) without a GPU. Freed blocks are
// kept for reuse by a request of the same rounded size, up to a cache limit: a training step asks
// for the same sizes every time, and a block fresh from the system costs a page fault per 4 KiB
// on first touch (glibc returns large blocks to the system as soon as they are freed).

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tscope/engine/allocator.h"

namespace tscope::engine {

// Read by the process-wide CPU allocator when it is first used: "512M", "2G", "65536".
inline constexpr std::string_view kCpuMemoryCapVariable = "TSCOPE_CPU_MEMORY_CAP";

// Parses a byte count with an optional K/M/G/T suffix (powers of 1024, optional trailing B);
// throws EngineError quoting `text` and `what` when malformed.
std::size_t parse_byte_size(std::string_view text, std::string_view what);

// The cap TSCOPE_CPU_MEMORY_CAP asks for, if the variable is set; throws EngineError when
// malformed.
std::optional<std::size_t> capacity_from_environment();

// The CPU allocator's calls to the system's allocator: blocks taken (aligned_alloc) and given
// back (free), and the memory its own tables of blocks took (a node per live block, a list per
// block size). A training step in its steady state makes none: every block it asks for comes
// from the cache, every block it frees goes back to it, and table nodes are reused.
struct SystemCalls {
  std::uint64_t allocations = 0;
  std::uint64_t frees = 0;
  std::uint64_t table_allocations = 0;
};

class CpuAllocator final : public Allocator {
 public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kDefaultCacheLimit = std::size_t{256} << 20;

  CpuAllocator() = default;
  CpuAllocator(const CpuAllocator&) = delete;
  CpuAllocator& operator=(const CpuAllocator&) = delete;
  ~CpuAllocator() override;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* address, std::size_t bytes) override;
  AllocatorStats stats() const override;
  Device device() const override { return Device::cpu(); }

  // No cap when empty. Lowering the cap below what is in use only affects later requests.
  void set_capacity(std::optional<std::size_t> capacity_bytes);
  std::optional<std::size_t> capacity() const;

  // Bytes of freed blocks kept for reuse; with bytes_in_use they make what the process holds.
  std::size_t cached_bytes() const;
  // Since the allocator was made.
  SystemCalls system_calls() const;
  // At most this many bytes stay cached; a block freed past it goes back to the system. 0
  // disables the cache.
  void set_cache_limit(std::size_t bytes);
  // Returns every cached block to the system.
  void empty_cache();

 private:
  struct Block {
    std::size_t bytes;
    std::string_view op_name;  // static, as every op's name is
  };

  // Where the tables' nodes come from, counting what it asks the system for.
  class CountingResource final : public std::pmr::memory_resource {
   public:
    explicit CountingResource(std::uint64_t& count) : count_(count) {}

   private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
      ++count_;
      return std::pmr::new_delete_resource()->allocate(bytes, alignment);
    }
    void do_deallocate(void* address, std::size_t bytes, std::size_t alignment) override {
      std::pmr::new_delete_resource()->deallocate(address, bytes, alignment);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
      return this == &other;
    }
    std::uint64_t& count_;
  };

  static std::size_t rounded_size(std::size_t bytes);
  void release_cache_locked();
  [[noreturn]] void throw_out_of_memory_locked(std::size_t bytes);

  mutable std::mutex mutex_;
  std::optional<std::size_t> capacity_;
  AllocatorStats stats_;
  SystemCalls system_calls_;
  CountingResource table_memory_{system_calls_.table_allocations};
  // Keeps the nodes the tables free for their next insert, so a steady mix of requests allocates
  // no table memory.
  std::pmr::unsynchronized_pool_resource table_pool_{&table_memory_};
  std::pmr::unordered_map<void*, Block> live_blocks_{&table_pool_};
  // Freed blocks by rounded size.
  std::pmr::unordered_map<std::size_t, std::pmr::vector<void*>> cached_blocks_{&table_pool_};
  std::size_t cached_bytes_ = 0;
  std::size_t cache_limit_ = kDefaultCacheLimit;
};

// The process-wide CPU allocator; its cap starts from TSCOPE_CPU_MEMORY_CAP when set.
CpuAllocator& cpu_allocator();

}  // namespace tscope::engine
