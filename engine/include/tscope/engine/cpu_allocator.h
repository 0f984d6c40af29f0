#pragma once
// Host memory for tensors: 64-byte aligned blocks with statistics and an optional capacity cap,
// so an out-of-memory failure can be reproduced (and analysed) without a GPU.

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

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

class CpuAllocator final : public Allocator {
 public:
  static constexpr std::size_t kAlignment = 64;

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
  // Restarts the peak at the current usage and the allocation count at zero.
  void reset_peak_and_count();

 private:
  struct Block {
    std::size_t bytes;
    std::string op_name;
  };

  mutable std::mutex mutex_;
  std::optional<std::size_t> capacity_;
  AllocatorStats stats_;
  std::unordered_map<void*, Block> live_blocks_;
};

// The process-wide CPU allocator; its cap starts from TSCOPE_CPU_MEMORY_CAP when set.
CpuAllocator& cpu_allocator();

}  // namespace tscope::engine
