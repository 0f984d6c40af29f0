// Row-wise CUDA kernels, one block per row of a dense [rows, length] matrix: sums, maxima with
// their positions, softmax and log-softmax with their gradients, and the negative log-likelihood.
// Sums accumulate in double, as the CPU kernels do, so both agree to float rounding.

#include <cmath>
#include <cstdint>

#include "cuda/grid.h"
#include "cuda/launchers.h"

namespace tscope::engine::cuda {
namespace {

constexpr int kWarp = 32;

unsigned int row_blocks(std::int64_t rows) {
  return static_cast<unsigned int>(rows);
}

// Sum over the block; every thread gets the result. `scratch` holds one value per warp.
template <typename T>
__device__ T block_sum(T value, T* scratch) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  T total = 0;
  for (int w = 0; w < static_cast<int>(blockDim.x) / kWarp; ++w)
    total += scratch[w];
  __syncthreads();
  return total;
}

// The better of two candidates for a row maximum: NaN first, then larger, then earlier.
__device__ void better_of(float& value, std::int64_t& index, float other_value,
                          std::int64_t other_index) {
  const bool nan = isnan(value);
  const bool other_nan = isnan(other_value);
  bool take_other;
  if (nan || other_nan) {
    take_other = other_nan && (!nan || other_index < index);
  } else {
    take_other = other_value > value || (other_value == value && other_index < index);
  }
  if (take_other) {
    value = other_value;
    index = other_index;
  }
}

__device__ void block_max(float& value, std::int64_t& index, float* value_scratch,
                          std::int64_t* index_scratch) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const float other_value = __shfl_down_sync(0xffffffffu, value, offset);
    const std::int64_t other_index = __shfl_down_sync(0xffffffffu, index, offset);
    better_of(value, index, other_value, other_index);
  }
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (lane == 0) {
    value_scratch[warp] = value;
    index_scratch[warp] = index;
  }
  __syncthreads();
  value = value_scratch[0];
  index = index_scratch[0];
  for (int w = 1; w < static_cast<int>(blockDim.x) / kWarp; ++w) {
    better_of(value, index, value_scratch[w], index_scratch[w]);
  }
  __syncthreads();
}

__global__ void row_sum(float* out, const float* x, std::int64_t length) {
  __shared__ double scratch[kThreads / kWarp];
  const float* row = x + blockIdx.x * length;
  double total = 0.0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x)
    total += row[i];
  total = block_sum(total, scratch);
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(total);
}

__global__ void row_max(float* values, std::int64_t* indices, const float* x, std::int64_t length) {
  __shared__ float value_scratch[kThreads / kWarp];
  __shared__ std::int64_t index_scratch[kThreads / kWarp];
  const float* row = x + blockIdx.x * length;
  float best = -INFINITY;
  std::int64_t best_index = length;  // no candidate yet: loses every comparison by index
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    if (best_index == length) {
      best = row[i];
      best_index = i;
    } else {
      better_of(best, best_index, row[i], i);
    }
  }
  block_max(best, best_index, value_scratch, index_scratch);
  if (threadIdx.x == 0) {
    values[blockIdx.x] = best;
    indices[blockIdx.x] = best_index;
  }
}

__global__ void softmax_rows(float* out, const float* x, std::int64_t length, bool log_output) {
  __shared__ float value_scratch[kThreads / kWarp];
  __shared__ std::int64_t index_scratch[kThreads / kWarp];
  __shared__ double sum_scratch[kThreads / kWarp];
  const float* row = x + blockIdx.x * length;
  float* result = out + blockIdx.x * length;
  float row_max_value = -INFINITY;
  std::int64_t row_max_index = length;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    if (row_max_index == length) {
      row_max_value = row[i];
      row_max_index = i;
    } else {
      better_of(row_max_value, row_max_index, row[i], i);
    }
  }
  block_max(row_max_value, row_max_index, value_scratch, index_scratch);
  double total = 0.0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    total += exp(static_cast<double>(row[i] - row_max_value));
  }
  const double log_total = log(block_sum(total, sum_scratch));
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const double shifted = static_cast<double>(row[i] - row_max_value) - log_total;
    result[i] = static_cast<float>(log_output ? shifted : exp(shifted));
  }
}

__global__ void softmax_backward_rows(float* out, const float* grad, const float* y,
                                      std::int64_t length, bool log_output) {
  __shared__ double scratch[kThreads / kWarp];
  const std::int64_t base = blockIdx.x * length;
  double partial = 0.0;
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    partial += log_output ? static_cast<double>(grad[base + i])
                          : static_cast<double>(grad[base + i]) * y[base + i];
  }
  const double total = block_sum(partial, scratch);
  for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) {
    const float g = grad[base + i];
    const float s = y[base + i];
    out[base + i] =
        log_output ? static_cast<float>(g - expf(s) * total) : static_cast<float>(s * (g - total));
  }
}

__global__ void nll_loss(float* out, const float* log_probs, const std::int64_t* targets,
                         std::int64_t batch, std::int64_t classes) {
  __shared__ double scratch[kThreads / kWarp];
  double partial = 0.0;
  for (std::int64_t row = threadIdx.x; row < batch; row += blockDim.x) {
    const std::int64_t target = targets[row];
    partial -= target >= 0 && target < classes
                   ? static_cast<double>(log_probs[row * classes + target])
                   : NAN;
  }
  const double total = block_sum(partial, scratch);
  if (threadIdx.x == 0) out[0] = static_cast<float>(total / static_cast<double>(batch));
}

__global__ void nll_loss_backward(float* out, const float* grad, const std::int64_t* targets,
                                  std::int64_t batch, std::int64_t classes) {
  const float per_sample = -grad[0] / static_cast<float>(batch);
  for (std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       row < batch; row += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t target = targets[row];
    if (target >= 0 && target < classes) out[row * classes + target] = per_sample;
  }
}

__global__ void scatter_max_grad(float* out, const float* grad, const std::int64_t* indices,
                                 std::int64_t step, StridedLayout layout, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t remaining = i;
    std::int64_t at[3] = {0, 0, 0};
    for (int d = layout.rank - 1; d >= 0; --d) {
      const std::int64_t coordinate = remaining % layout.shape[d];
      remaining /= layout.shape[d];
      for (int k = 0; k < 3; ++k)
        at[k] += coordinate * layout.strides[k][d];
    }
    out[at[0] + indices[at[2]] * step] = grad[at[1]];
  }
}

unsigned int grid_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

}  // namespace

void launch_row_sum(float* out, const float* x, std::int64_t rows, std::int64_t length,
                    cudaStream_t stream) {
  if (rows == 0) return;
  row_sum<<<row_blocks(rows), kThreads, 0, stream>>>(out, x, length);
}

void launch_row_max(float* values, std::int64_t* indices, const float* x, std::int64_t rows,
                    std::int64_t length, cudaStream_t stream) {
  if (rows == 0) return;
  row_max<<<row_blocks(rows), kThreads, 0, stream>>>(values, indices, x, length);
}

void launch_softmax(float* out, const float* x, std::int64_t rows, std::int64_t length, bool log,
                    cudaStream_t stream) {
  if (rows == 0 || length == 0) return;
  softmax_rows<<<row_blocks(rows), kThreads, 0, stream>>>(out, x, length, log);
}

void launch_softmax_backward(float* out, const float* grad, const float* y, std::int64_t rows,
                             std::int64_t length, bool log, cudaStream_t stream) {
  if (rows == 0 || length == 0) return;
  softmax_backward_rows<<<row_blocks(rows), kThreads, 0, stream>>>(out, grad, y, length, log);
}

void launch_nll_loss(float* out, const float* log_probs, const std::int64_t* targets,
                     std::int64_t batch, std::int64_t classes, cudaStream_t stream) {
  nll_loss<<<1, kThreads, 0, stream>>>(out, log_probs, targets, batch, classes);
}

void launch_nll_loss_backward(float* out, const float* grad, const std::int64_t* targets,
                              std::int64_t batch, std::int64_t classes, cudaStream_t stream) {
  if (batch == 0) return;
  nll_loss_backward<<<grid_for(batch), kThreads, 0, stream>>>(out, grad, targets, batch, classes);
}

void launch_scatter_max_grad(float* out, const float* grad, const std::int64_t* indices,
                             std::int64_t step, const StridedLayout& layout, std::int64_t count,
                             cudaStream_t stream) {
  if (count == 0) return;
  scatter_max_grad<<<grid_for(count), kThreads, 0, stream>>>(out, grad, indices, step, layout,
                                                             count);
}

}  // namespace tscope::engine::cuda
