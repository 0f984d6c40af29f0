#pragma once
// The op the calling thread is running, so allocators can say which op owns each block.

#include <string_view>

namespace tscope::engine {

// Empty outside any op.
std::string_view current_op_name();

// Marks the calling thread as running `op_name` until destroyed; nests (restores the outer op).
class CurrentOpScope {
 public:
  explicit CurrentOpScope(std::string_view op_name);
  CurrentOpScope(const CurrentOpScope&) = delete;
  CurrentOpScope& operator=(const CurrentOpScope&) = delete;
  ~CurrentOpScope();

 private:
  std::string_view previous_;
};

}  // namespace tscope::engine
