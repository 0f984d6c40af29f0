#include "tscope/engine/memory_snapshot.h"

#include <algorithm>
#include <cstdio>

namespace tscope::engine {
namespace {

std::string hex_address(std::uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%jx", static_cast<std::uintmax_t>(address));
  return text;
}

std::vector<LiveAllocation> allocated_blocks(const MemorySnapshot& snapshot) {
  std::vector<LiveAllocation> live;
  for (const SegmentSnapshot& segment : snapshot.segments) {
    for (const BlockSnapshot& block : segment.blocks) {
      if (block.allocated) {
        live.push_back({reinterpret_cast<const void*>(block.address), block.bytes, block.owner_op});
      }
    }
  }
  std::ranges::sort(
      live, [](const LiveAllocation& a, const LiveAllocation& b) { return a.bytes > b.bytes; });
  return live;
}

}  // namespace

std::size_t MemorySnapshot::allocated_bytes() const {
  std::size_t total = 0;
  for (const SegmentSnapshot& segment : segments) {
    for (const BlockSnapshot& block : segment.blocks) {
      if (block.allocated) total += block.bytes;
    }
  }
  return total;
}

std::size_t MemorySnapshot::reserved_bytes() const {
  std::size_t total = 0;
  for (const SegmentSnapshot& segment : segments)
    total += segment.bytes;
  return total;
}

std::string MemorySnapshot::to_string() const {
  std::string text;
  for (const SegmentSnapshot& segment : segments) {
    text += "segment " + hex_address(segment.address) + " " + std::to_string(segment.bytes) +
            " bytes (" + (segment.small_pool ? "small" : "large") + " pool, stream " +
            hex_address(segment.stream) + "):";
    for (const BlockSnapshot& block : segment.blocks) {
      text += " [" + std::to_string(block.bytes) + " ";
      if (block.allocated) {
        text += block.owner_op.empty() ? std::string("(no op)") : block.owner_op;
      } else {
        text += "free";
      }
      text += "]";
    }
    text += "\n";
  }
  return text;
}

DeviceOutOfMemory::DeviceOutOfMemory(Device device, std::size_t requested_bytes,
                                     std::size_t capacity_bytes, MemorySnapshot snapshot)
    : OutOfMemory(requested_bytes, capacity_bytes, snapshot.allocated_bytes(),
                  allocated_blocks(snapshot)),
      device_(device),
      snapshot_(std::move(snapshot)) {
  message_ = device_.to_string() + ": " + OutOfMemory::what() + "; " +
             std::to_string(snapshot_.reserved_bytes()) + " bytes reserved in " +
             std::to_string(snapshot_.segments.size()) + " segments after releasing the cache";
}

}  // namespace tscope::engine
