#pragma once
// The error an allocator throws when a request would pass its capacity: what was asked, what
// the cap is, which op asked, and which allocations (and the ops that made them) hold the memory
// now.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tscope::engine {

struct LiveAllocation {
  const void* address = nullptr;
  std::size_t bytes = 0;
  std::string op_name;  // the op running when the memory was allocated, or empty outside ops
};

// Constructed where the allocation failed: it takes the requesting op from the calling thread.
class OutOfMemory : public std::runtime_error {
 public:
  OutOfMemory(std::size_t requested_bytes, std::size_t capacity_bytes, std::size_t bytes_in_use,
              std::vector<LiveAllocation> live_allocations);

  std::size_t requested_bytes() const { return requested_bytes_; }
  std::size_t capacity_bytes() const { return capacity_bytes_; }
  std::size_t bytes_in_use() const { return bytes_in_use_; }
  // The outermost engine op running when the request failed (conv2d), and the innermost one whose
  // kernel made the request (im2col); both empty outside ops, equal when the op did not nest.
  const std::string& requesting_op() const { return requesting_op_; }
  const std::string& inner_op() const { return inner_op_; }
  // Largest first.
  const std::vector<LiveAllocation>& live_allocations() const { return live_allocations_; }

 private:
  std::size_t requested_bytes_;
  std::size_t capacity_bytes_;
  std::size_t bytes_in_use_;
  std::string requesting_op_;
  std::string inner_op_;
  std::vector<LiveAllocation> live_allocations_;
};

}  // namespace tscope::engine
