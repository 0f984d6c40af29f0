#pragma once
// The launch shape of the grid-stride kernels: 256 threads per block and enough blocks to fill
// any current GPU; the kernels' loops cover whatever the grid does not.

#include <cstdint>

namespace tscope::engine::cuda {

inline constexpr int kThreads = 256;
inline constexpr std::int64_t kMaxBlocks = 65535;

inline unsigned int blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

}  // namespace tscope::engine::cuda
