#pragma once
// The op the calling thread is running, so allocators can say which op owns each block.

#include <string_view>

namespace tscope::engine {

// The innermost op: the one whose kernel makes the allocation (im2col inside conv2d). Empty
// outside any op.
std::string_view current_op_name();

// The outermost op on the calling thread's stack: the one the user's code called (conv2d, not the
// im2col it is composed of), which an out-of-memory report names as the op that asked. Empty
// outside any op.
std::string_view outermost_op_name();

// Marks the calling thread as running `op_name` until destroyed; nests (restores the outer op).
class CurrentOpScope {
 public:
  explicit CurrentOpScope(std::string_view op_name);
  CurrentOpScope(const CurrentOpScope&) = delete;
  CurrentOpScope& operator=(const CurrentOpScope&) = delete;
  ~CurrentOpScope();

 private:
  std::string_view previous_;
  bool outermost_ = false;
};

}  // namespace tscope::engine
