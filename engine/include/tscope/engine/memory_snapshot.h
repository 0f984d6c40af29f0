#pragma once
// What a caching allocator holds at one moment (its segments and the blocks cut from them, with
// the op that owns each), and the out-of-memory error that carries such a snapshot.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tscope/engine/device.h"
#include "tscope/engine/out_of_memory.h"

namespace tscope::engine {

struct BlockSnapshot {
  std::uintptr_t address = 0;
  std::size_t bytes = 0;
  bool allocated = false;
  std::size_t requested_bytes = 0;  // what the caller asked for; 0 for a free block
  std::string owner_op;             // the op that allocated it; empty when free or outside ops
};

struct SegmentSnapshot {
  std::uintptr_t address = 0;
  std::size_t bytes = 0;
  std::uintptr_t stream = 0;
  bool small_pool = false;
  std::vector<BlockSnapshot> blocks;  // in address order, covering the segment
};

struct MemorySnapshot {
  std::vector<SegmentSnapshot> segments;  // in address order

  std::size_t allocated_bytes() const;
  std::size_t reserved_bytes() const;
  // Human-readable, one segment per line with its blocks; what an OOM report prints.
  std::string to_string() const;
};

// A device allocator could not serve a request even after releasing its cache.
class DeviceOutOfMemory : public OutOfMemory {
 public:
  DeviceOutOfMemory(Device device, std::size_t requested_bytes, std::size_t capacity_bytes,
                    MemorySnapshot snapshot);

  const char* what() const noexcept override { return message_.c_str(); }
  Device device() const { return device_; }
  const MemorySnapshot& snapshot() const { return snapshot_; }

 private:
  Device device_;
  MemorySnapshot snapshot_;
  std::string message_;
};

}  // namespace tscope::engine
