#include "tscope/engine/out_of_memory.h"

#include <cstdio>

#include "current_op.h"

namespace tscope::engine {
namespace {

// The message lists the largest holders, enough to see what filled the memory.
constexpr std::size_t kAllocationsInMessage = 5;

std::string describe(std::size_t requested, std::size_t capacity, std::size_t in_use,
                     const std::vector<LiveAllocation>& live) {
  std::string text = "out of memory";
  const std::string_view outer = outermost_op_name();
  const std::string_view inner = current_op_name();
  if (!outer.empty()) {
    text += " in " + std::string(outer);
    if (inner != outer) text += " (" + std::string(inner) + ")";
  }
  text += ": requested " + std::to_string(requested) + " bytes with " + std::to_string(in_use) +
          " of " + std::to_string(capacity) + " bytes in use by " + std::to_string(live.size()) +
          " live allocations";
  for (std::size_t i = 0; i < live.size() && i < kAllocationsInMessage; ++i) {
    char address[32];
    std::snprintf(address, sizeof(address), "%p", live[i].address);
    text += "; " + std::to_string(live[i].bytes) + " bytes at " + address + " by " +
            (live[i].op_name.empty() ? std::string("(no op)") : live[i].op_name);
  }
  return text;
}

}  // namespace

OutOfMemory::OutOfMemory(std::size_t requested_bytes, std::size_t capacity_bytes,
                         std::size_t bytes_in_use, std::vector<LiveAllocation> live_allocations)
    : std::runtime_error(describe(requested_bytes, capacity_bytes, bytes_in_use, live_allocations)),
      requested_bytes_(requested_bytes),
      capacity_bytes_(capacity_bytes),
      bytes_in_use_(bytes_in_use),
      requesting_op_(outermost_op_name()),
      inner_op_(current_op_name()),
      live_allocations_(std::move(live_allocations)) {}

}  // namespace tscope::engine
