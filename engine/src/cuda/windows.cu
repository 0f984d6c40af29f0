// Sliding-window CUDA kernels over dense [N, C, H, W] images: im2col and col2im (a convolution as
// one GEMM per image) and max pooling with its gradient. Layouts match cpu/conv_kernels.cpp and
// cpu/pool_kernels.cpp exactly, so the same indices and columns come out of both.

#include <cstdint>

#include "cuda/grid.h"
#include "cuda/launchers.h"

namespace tscope::engine::cuda {
namespace {

#define TSCOPE_GRID_STRIDE_LOOP(index, count)                                                 \
  for (std::int64_t index = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; \
       index < (count); index += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

// One thread per column element: cols[n][row][position].
__global__ void im2col(float* cols, const float* x, WindowGeometry g, std::int64_t count) {
  const std::int64_t positions = g.out_height * g.out_width;
  const std::int64_t patch = g.channels * g.kernel_height * g.kernel_width;
  TSCOPE_GRID_STRIDE_LOOP(i, count) {
    const std::int64_t position = i % positions;
    const std::int64_t row = (i / positions) % patch;
    const std::int64_t n = i / (positions * patch);
    const std::int64_t kj = row % g.kernel_width;
    const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
    const std::int64_t c = row / (g.kernel_width * g.kernel_height);
    const std::int64_t ih = (position / g.out_width) * g.stride - g.padding + ki;
    const std::int64_t iw = (position % g.out_width) * g.stride - g.padding + kj;
    const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
    cols[i] = inside ? x[((n * g.channels + c) * g.height + ih) * g.width + iw] : 0.0f;
  }
}

// One thread per image element gathers every column entry that came from it: no atomics.
__global__ void col2im(float* x, const float* cols, WindowGeometry g, std::int64_t count) {
  const std::int64_t positions = g.out_height * g.out_width;
  const std::int64_t patch = g.channels * g.kernel_height * g.kernel_width;
  TSCOPE_GRID_STRIDE_LOOP(i, count) {
    const std::int64_t iw = i % g.width;
    const std::int64_t ih = (i / g.width) % g.height;
    const std::int64_t c = (i / (g.width * g.height)) % g.channels;
    const std::int64_t n = i / (g.width * g.height * g.channels);
    float total = 0.0f;
    for (std::int64_t ki = 0; ki < g.kernel_height; ++ki) {
      const std::int64_t oh_stride = ih + g.padding - ki;
      if (oh_stride < 0 || oh_stride % g.stride != 0) continue;
      const std::int64_t oh = oh_stride / g.stride;
      if (oh >= g.out_height) continue;
      for (std::int64_t kj = 0; kj < g.kernel_width; ++kj) {
        const std::int64_t ow_stride = iw + g.padding - kj;
        if (ow_stride < 0 || ow_stride % g.stride != 0) continue;
        const std::int64_t ow = ow_stride / g.stride;
        if (ow >= g.out_width) continue;
        const std::int64_t row = (c * g.kernel_height + ki) * g.kernel_width + kj;
        total += cols[(n * patch + row) * positions + oh * g.out_width + ow];
      }
    }
    x[i] = total;
  }
}

__global__ void max_pool(float* out, std::int64_t* indices, const float* x, WindowGeometry g,
                         std::int64_t count) {
  TSCOPE_GRID_STRIDE_LOOP(i, count) {
    const std::int64_t ow = i % g.out_width;
    const std::int64_t oh = (i / g.out_width) % g.out_height;
    const std::int64_t plane = i / (g.out_width * g.out_height);
    const float* in = x + plane * g.height * g.width;
    std::int64_t best = (oh * g.stride) * g.width + ow * g.stride;
    for (std::int64_t ki = 0; ki < g.kernel_height; ++ki) {
      for (std::int64_t kj = 0; kj < g.kernel_width; ++kj) {
        const std::int64_t at = (oh * g.stride + ki) * g.width + ow * g.stride + kj;
        if (in[at] > in[best]) best = at;
      }
    }
    out[i] = in[best];
    indices[i] = best;
  }
}

// Overlapping windows can pick the same input, so contributions are added atomically.
__global__ void max_pool_backward(float* out, const float* grad, const std::int64_t* indices,
                                  WindowGeometry g, std::int64_t count) {
  const std::int64_t outputs_per_plane = g.out_height * g.out_width;
  TSCOPE_GRID_STRIDE_LOOP(i, count) {
    const std::int64_t plane = i / outputs_per_plane;
    atomicAdd(out + plane * g.height * g.width + indices[i], grad[i]);
  }
}

}  // namespace

void launch_im2col(float* cols, const float* x, const WindowGeometry& g, cudaStream_t stream) {
  const std::int64_t count =
      g.batch * g.channels * g.kernel_height * g.kernel_width * g.out_height * g.out_width;
  if (count == 0) return;
  im2col<<<blocks_for(count), kThreads, 0, stream>>>(cols, x, g, count);
}

void launch_col2im(float* x, const float* cols, const WindowGeometry& g, cudaStream_t stream) {
  const std::int64_t count = g.batch * g.channels * g.height * g.width;
  if (count == 0) return;
  col2im<<<blocks_for(count), kThreads, 0, stream>>>(x, cols, g, count);
}

void launch_max_pool(float* out, std::int64_t* indices, const float* x, const WindowGeometry& g,
                     cudaStream_t stream) {
  const std::int64_t count = g.batch * g.channels * g.out_height * g.out_width;
  if (count == 0) return;
  max_pool<<<blocks_for(count), kThreads, 0, stream>>>(out, indices, x, g, count);
}

void launch_max_pool_backward(float* out, const float* grad, const std::int64_t* indices,
                              const WindowGeometry& g, cudaStream_t stream) {
  const std::int64_t count = g.batch * g.channels * g.out_height * g.out_width;
  if (count == 0) return;
  max_pool_backward<<<blocks_for(count), kThreads, 0, stream>>>(out, grad, indices, g, count);
}

}  // namespace tscope::engine::cuda
