// Fused row-wise CUDA kernels: layer normalisation with its gradients, and cross-entropy from
// logits with its gradient. A narrow row belongs to one warp (shuffles only, no barrier), a wide
// one to a whole block. Sums accumulate in double in an order fixed by the shape, as the CPU
// kernels (cpu/normalization_kernels.cpp, cpu/loss_kernels.cpp) do, so both agree to float
// rounding and every run gives the same bits: the weight and bias gradients are summed per chunk of
// rows and then over chunks rather than with float atomics, whose order changes run to run.

#include <cmath>
#include <cstdint>

#include "cuda/grid.h"
#include "cuda/launchers.h"

namespace tscope::engine::cuda {
namespace {

constexpr int kWarp = 32;
// Rows up to this wide go one per warp; wider ones would leave a warp looping over them alone.
constexpr std::int64_t kWarpRowLimit = 1024;
// The weight and bias gradients read tiles of kColumnTile columns (one warp's coalesced load)
// by kLayerNormRowLanes rows.
constexpr int kColumnTile = 32;

struct Plus {
  __device__ double operator()(double a, double b) const { return a + b; }
};

struct Larger {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Combines `value` over the threads that share a row; every one of them gets the result. The
// butterfly gives each lane of a warp the same bits, since each step combines the same pair in
// either order. `scratch` (one slot per warp) serves only when a block shares the row.
template <int kRowThreads, typename T, typename Combine>
__device__ T row_reduce(T value, T* scratch, Combine combine) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  if constexpr (kRowThreads == kWarp) {
    return value;
  } else {
    if (threadIdx.x % kWarp == 0) scratch[threadIdx.x / kWarp] = value;
    __syncthreads();
    T result = scratch[0];
    for (int w = 1; w < kRowThreads / kWarp; ++w)
      result = combine(result, scratch[w]);
    __syncthreads();
    return result;
  }
}

// The row this thread works on, and its place among the row's kRowThreads threads.
template <int kRowThreads>
__device__ std::int64_t row_of_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * (kThreads / kRowThreads) +
         threadIdx.x / kRowThreads;
}

template <int kRowThreads>
__device__ int lane_in_row() {
  return static_cast<int>(threadIdx.x % kRowThreads);
}

template <int kRowThreads>
__global__ void layer_norm_rows(float* out, float* mean_out, float* rstd_out, const float* x,
                                const float* weight, const float* bias, std::int64_t rows,
                                std::int64_t cols, double eps) {
  __shared__ double scratch[kThreads / kWarp];
  const std::int64_t row = row_of_thread<kRowThreads>();
  const int lane = lane_in_row<kRowThreads>();
  // Only whole warps leave here: a block-wide row is never past the end.
  if (row >= rows) return;
  const float* input = x + row * cols;
  double total = 0.0;
  for (std::int64_t i = lane; i < cols; i += kRowThreads)
    total += input[i];
  const double mean = row_reduce<kRowThreads>(total, scratch, Plus{}) / static_cast<double>(cols);
  double squares = 0.0;
  for (std::int64_t i = lane; i < cols; i += kRowThreads) {
    const double centred = input[i] - mean;
    squares += centred * centred;
  }
  const double variance =
      row_reduce<kRowThreads>(squares, scratch, Plus{}) / static_cast<double>(cols);
  const double rstd = 1.0 / sqrt(variance + eps);
  float* result = out + row * cols;
  for (std::int64_t i = lane; i < cols; i += kRowThreads) {
    double value = (input[i] - mean) * rstd;
    if (weight != nullptr) value *= weight[i];
    if (bias != nullptr) value += bias[i];
    result[i] = static_cast<float>(value);
  }
  if (lane == 0) {
    mean_out[row] = static_cast<float>(mean);
    rstd_out[row] = static_cast<float>(rstd);
  }
}

template <int kRowThreads>
__global__ void layer_norm_input_grad_rows(float* grad_input, const float* grad, const float* x,
                                           const float* weight, const float* mean,
                                           const float* rstd, std::int64_t rows,
                                           std::int64_t cols) {
  __shared__ double scratch[kThreads / kWarp];
  const std::int64_t row = row_of_thread<kRowThreads>();
  const int lane = lane_in_row<kRowThreads>();
  if (row >= rows) return;
  const float* upstream = grad + row * cols;
  const float* input = x + row * cols;
  const double row_mean = mean[row];
  const double row_rstd = rstd[row];
  double grad_total = 0.0;
  double grad_dot = 0.0;
  for (std::int64_t i = lane; i < cols; i += kRowThreads) {
    const double scaled = weight != nullptr ? static_cast<double>(upstream[i]) * weight[i]
                                            : static_cast<double>(upstream[i]);
    grad_total += scaled;
    grad_dot += scaled * ((input[i] - row_mean) * row_rstd);
  }
  const double grad_mean =
      row_reduce<kRowThreads>(grad_total, scratch, Plus{}) / static_cast<double>(cols);
  const double grad_projection =
      row_reduce<kRowThreads>(grad_dot, scratch, Plus{}) / static_cast<double>(cols);
  float* result = grad_input + row * cols;
  for (std::int64_t i = lane; i < cols; i += kRowThreads) {
    const double scaled = weight != nullptr ? static_cast<double>(upstream[i]) * weight[i]
                                            : static_cast<double>(upstream[i]);
    const double normalised = (input[i] - row_mean) * row_rstd;
    result[i] = static_cast<float>(row_rstd * (scaled - grad_mean - normalised * grad_projection));
  }
}

// Block (x, y) sums column tile x over rows y * kLayerNormRowLanes + threadIdx.y, stepping by
// gridDim.y * kLayerNormRowLanes, into row y of the partial sums (either may be null).
__global__ void layer_norm_column_partials(float* weight_partials, float* bias_partials,
                                           const float* grad, const float* x, const float* mean,
                                           const float* rstd, std::int64_t rows,
                                           std::int64_t cols) {
  __shared__ double weight_scratch[kLayerNormRowLanes][kColumnTile];
  __shared__ double bias_scratch[kLayerNormRowLanes][kColumnTile];
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  double weight_sum = 0.0;
  double bias_sum = 0.0;
  if (col < cols) {
    for (std::int64_t row =
             static_cast<std::int64_t>(blockIdx.y) * kLayerNormRowLanes + threadIdx.y;
         row < rows; row += static_cast<std::int64_t>(gridDim.y) * kLayerNormRowLanes) {
      const double upstream = grad[row * cols + col];
      weight_sum += upstream * ((x[row * cols + col] - static_cast<double>(mean[row])) * rstd[row]);
      bias_sum += upstream;
    }
  }
  weight_scratch[threadIdx.y][threadIdx.x] = weight_sum;
  bias_scratch[threadIdx.y][threadIdx.x] = bias_sum;
  __syncthreads();
  if (threadIdx.y != 0 || col >= cols) return;
  for (int lane = 1; lane < kLayerNormRowLanes; ++lane) {
    weight_sum += weight_scratch[lane][threadIdx.x];
    bias_sum += bias_scratch[lane][threadIdx.x];
  }
  const std::int64_t at = static_cast<std::int64_t>(blockIdx.y) * cols + col;
  if (weight_partials != nullptr) weight_partials[at] = static_cast<float>(weight_sum);
  if (bias_partials != nullptr) bias_partials[at] = static_cast<float>(bias_sum);
}

// out[col] = sum over chunks of partials[chunk, col], chunks in order.
__global__ void sum_column_partials(float* out, const float* partials, std::int64_t chunks,
                                    std::int64_t cols) {
  for (std::int64_t col = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       col < cols; col += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    double total = 0.0;
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk)
      total += partials[chunk * cols + col];
    out[col] = static_cast<float>(total);
  }
}

template <int kRowThreads>
__global__ void cross_entropy_rows(float* row_losses, float* log_sum_exp, const float* logits,
                                   const std::int64_t* targets, std::int64_t rows,
                                   std::int64_t classes) {
  __shared__ float max_scratch[kThreads / kWarp];
  __shared__ double sum_scratch[kThreads / kWarp];
  const std::int64_t row = row_of_thread<kRowThreads>();
  const int lane = lane_in_row<kRowThreads>();
  if (row >= rows) return;
  const float* scores = logits + row * classes;
  float row_max = -INFINITY;
  for (std::int64_t i = lane; i < classes; i += kRowThreads)
    row_max = fmaxf(row_max, scores[i]);
  row_max = row_reduce<kRowThreads>(row_max, max_scratch, Larger{});
  double total = 0.0;
  for (std::int64_t i = lane; i < classes; i += kRowThreads)
    total += exp(static_cast<double>(scores[i] - row_max));
  const double log_total = log(row_reduce<kRowThreads>(total, sum_scratch, Plus{}));
  if (lane != 0) return;
  const std::int64_t target = targets[row];
  // A device cannot throw: a target outside [0, classes) makes its row's loss, and so the mean,
  // NaN, as nll_loss does.
  row_losses[row] =
      target >= 0 && target < classes
          ? static_cast<float>(log_total - static_cast<double>(scores[target] - row_max))
          : NAN;
  log_sum_exp[row] = static_cast<float>(static_cast<double>(row_max) + log_total);
}

// One block sums the rows' losses in a fixed order.
__global__ void mean_of_rows(float* out, const float* row_losses, std::int64_t rows) {
  __shared__ double scratch[kThreads / kWarp];
  double total = 0.0;
  for (std::int64_t row = threadIdx.x; row < rows; row += kThreads)
    total += row_losses[row];
  total = row_reduce<kThreads>(total, scratch, Plus{});
  if (threadIdx.x == 0) out[0] = static_cast<float>(total / static_cast<double>(rows));
}

template <int kRowThreads>
__global__ void cross_entropy_backward_rows(float* grad_logits, const float* grad,
                                            const float* logits, const std::int64_t* targets,
                                            const float* log_sum_exp, std::int64_t rows,
                                            std::int64_t classes) {
  const std::int64_t row = row_of_thread<kRowThreads>();
  const int lane = lane_in_row<kRowThreads>();
  if (row >= rows) return;
  const double per_sample = static_cast<double>(grad[0]) / static_cast<double>(rows);
  const std::int64_t target = targets[row];
  const bool valid_target = target >= 0 && target < classes;
  const double normaliser = log_sum_exp[row];
  const float* scores = logits + row * classes;
  float* result = grad_logits + row * classes;
  for (std::int64_t i = lane; i < classes; i += kRowThreads) {
    const double probability = exp(static_cast<double>(scores[i]) - normaliser);
    result[i] = valid_target
                    ? static_cast<float>(per_sample * (probability - (i == target ? 1.0 : 0.0)))
                    : NAN;
  }
}

unsigned int blocks_for_rows(std::int64_t rows, int row_threads) {
  const std::int64_t rows_per_block = kThreads / row_threads;
  return static_cast<unsigned int>((rows + rows_per_block - 1) / rows_per_block);
}

}  // namespace

void launch_layer_norm(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, std::int64_t rows, std::int64_t cols, double eps,
                       cudaStream_t stream) {
  if (rows == 0) return;
  if (cols <= kWarpRowLimit) {
    layer_norm_rows<kWarp><<<blocks_for_rows(rows, kWarp), kThreads, 0, stream>>>(
        out, mean, rstd, x, weight, bias, rows, cols, eps);
  } else {
    layer_norm_rows<kThreads><<<blocks_for_rows(rows, kThreads), kThreads, 0, stream>>>(
        out, mean, rstd, x, weight, bias, rows, cols, eps);
  }
}

void launch_layer_norm_input_grad(float* grad_input, const float* grad, const float* x,
                                  const float* weight, const float* mean, const float* rstd,
                                  std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (rows == 0) return;
  if (cols <= kWarpRowLimit) {
    layer_norm_input_grad_rows<kWarp><<<blocks_for_rows(rows, kWarp), kThreads, 0, stream>>>(
        grad_input, grad, x, weight, mean, rstd, rows, cols);
  } else {
    layer_norm_input_grad_rows<kThreads><<<blocks_for_rows(rows, kThreads), kThreads, 0, stream>>>(
        grad_input, grad, x, weight, mean, rstd, rows, cols);
  }
}

void launch_layer_norm_column_partials(float* weight_partials, float* bias_partials,
                                       const float* grad, const float* x, const float* mean,
                                       const float* rstd, std::int64_t rows, std::int64_t cols,
                                       cudaStream_t stream) {
  if (cols == 0) return;
  const dim3 grid(static_cast<unsigned int>((cols + kColumnTile - 1) / kColumnTile),
                  static_cast<unsigned int>(layer_norm_row_chunks(rows)));
  const dim3 block(kColumnTile, kLayerNormRowLanes);
  layer_norm_column_partials<<<grid, block, 0, stream>>>(weight_partials, bias_partials, grad, x,
                                                         mean, rstd, rows, cols);
}

void launch_sum_column_partials(float* out, const float* partials, std::int64_t chunks,
                                std::int64_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  sum_column_partials<<<blocks_for(cols), kThreads, 0, stream>>>(out, partials, chunks, cols);
}

void launch_cross_entropy(float* row_losses, float* log_sum_exp, const float* logits,
                          const std::int64_t* targets, std::int64_t rows, std::int64_t classes,
                          cudaStream_t stream) {
  if (rows == 0) return;
  if (classes <= kWarpRowLimit) {
    cross_entropy_rows<kWarp><<<blocks_for_rows(rows, kWarp), kThreads, 0, stream>>>(
        row_losses, log_sum_exp, logits, targets, rows, classes);
  } else {
    cross_entropy_rows<kThreads><<<blocks_for_rows(rows, kThreads), kThreads, 0, stream>>>(
        row_losses, log_sum_exp, logits, targets, rows, classes);
  }
}

void launch_mean_of_rows(float* out, const float* row_losses, std::int64_t rows,
                         cudaStream_t stream) {
  mean_of_rows<<<1, kThreads, 0, stream>>>(out, row_losses, rows);
}

void launch_cross_entropy_backward(float* grad_logits, const float* grad, const float* logits,
                                   const std::int64_t* targets, const float* log_sum_exp,
                                   std::int64_t rows, std::int64_t classes, cudaStream_t stream) {
  if (rows == 0) return;
  if (classes <= kWarpRowLimit) {
    cross_entropy_backward_rows<kWarp><<<blocks_for_rows(rows, kWarp), kThreads, 0, stream>>>(
        grad_logits, grad, logits, targets, log_sum_exp, rows, classes);
  } else {
    cross_entropy_backward_rows<kThreads><<<blocks_for_rows(rows, kThreads), kThreads, 0, stream>>>(
        grad_logits, grad, logits, targets, log_sum_exp, rows, classes);
  }
}

}  // namespace tscope::engine::cuda
