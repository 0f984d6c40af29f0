#pragma once
// The geometry of a window sliding over a dense [batch, channels, height, width] input: a 2-D
// convolution's (Conv2dGeometry) and a max pooling's (Pool2dGeometry), as both backends' kernels
// take it. Plain C++17, so device code includes it too.

#include <cstdint>

namespace tscope::engine {

struct WindowGeometry {
  std::int64_t batch = 0;
  std::int64_t channels = 0;
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::int64_t kernel_height = 0;
  std::int64_t kernel_width = 0;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t out_height = 0;
  std::int64_t out_width = 0;
};

}  // namespace tscope::engine
