// Random fills on the device from the generator's Philox stream: each thread computes the Philox
// blocks of its own elements, so nothing is drawn on the host or copied over.

#include <cstdint>

#include "cuda/grid.h"
#include "cuda/launchers.h"

namespace tscope::engine::cuda {
namespace {

// Element i from draw i (the uniform and mask fills): four elements per Philox block.
template <typename Distribution>
__global__ void fill_one_draw_each(float* out, std::int64_t count, PhiloxStream stream,
                                   Distribution distribution) {
  const std::int64_t groups = (count + 3) / 4;
  for (std::int64_t group = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       group < groups; group += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const PhiloxBlock draws = philox_block(stream, static_cast<std::uint64_t>(group));
    for (int lane = 0; lane < 4 && group * 4 + lane < count; ++lane) {
      out[group * 4 + lane] = distribution(draws.word[lane]);
    }
  }
}

// Element i from draws 2i and 2i + 1: two elements per Philox block.
__global__ void fill_normal(float* out, std::int64_t count, float mean, float stddev,
                            PhiloxStream stream) {
  const std::int64_t pairs = (count + 1) / 2;
  for (std::int64_t pair = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       pair < pairs; pair += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const PhiloxBlock draws = philox_block(stream, static_cast<std::uint64_t>(pair));
    out[pair * 2] = philox_normal(draws.word[0], draws.word[1], mean, stddev);
    if (pair * 2 + 1 < count) {
      out[pair * 2 + 1] = philox_normal(draws.word[2], draws.word[3], mean, stddev);
    }
  }
}

struct Uniform {
  float low;
  float high;
  __device__ float operator()(std::uint32_t draw) const { return philox_uniform(draw, low, high); }
};

struct Mask {
  float keep_probability;
  float scale;
  __device__ float operator()(std::uint32_t draw) const {
    return philox_mask(draw, keep_probability, scale);
  }
};

}  // namespace

void launch_uniform(float* out, std::int64_t count, float low, float high, PhiloxStream stream,
                    cudaStream_t cuda_stream) {
  if (count == 0) return;
  fill_one_draw_each<<<blocks_for((count + 3) / 4), kThreads, 0, cuda_stream>>>(out, count, stream,
                                                                                Uniform{low, high});
}

void launch_normal(float* out, std::int64_t count, float mean, float stddev, PhiloxStream stream,
                   cudaStream_t cuda_stream) {
  if (count == 0) return;
  fill_normal<<<blocks_for((count + 1) / 2), kThreads, 0, cuda_stream>>>(out, count, mean, stddev,
                                                                         stream);
}

void launch_bernoulli_mask(float* out, std::int64_t count, float keep_probability, float scale,
                           PhiloxStream stream, cudaStream_t cuda_stream) {
  if (count == 0) return;
  fill_one_draw_each<<<blocks_for((count + 3) / 4), kThreads, 0, cuda_stream>>>(
      out, count, stream, Mask{keep_probability, scale});
}

}  // namespace tscope::engine::cuda
