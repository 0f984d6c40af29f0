#pragma once
// The CUDA kernels' host entry points over raw device pointers. Plain C++17, so that nvcc (which
// compiles device code as C++17) and the engine's C++20 wrappers both include it.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "philox.h"
#include "tscope/engine/window_geometry.h"

namespace tscope::engine::cuda {

inline constexpr int kMaxDims = 8;

// Element offsets of up to three operands walked over one shape: operand 0 is the output.
struct StridedLayout {
  int rank = 0;
  std::int64_t shape[kMaxDims] = {};
  std::int64_t strides[3][kMaxDims] = {};
};

enum class UnaryOp : std::uint8_t {
  kNeg,
  kExp,
  kLog,
  kSqrt,
  kRelu,
  kGelu,
  kSigmoid,
  kTanh,
  kAddScalar,
  kMulScalar,
  kPowScalar,
};

enum class BinaryOp : std::uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kReluBackward,
  kGeluBackward,
  kSigmoidBackward,
  kTanhBackward,
};

// out = op(x) over `count` dense elements; 16-byte vector loads where all pointers allow them.
void launch_unary_dense(UnaryOp op, float scalar, float* out, const float* x, std::int64_t count,
                        cudaStream_t stream);
void launch_unary_strided(UnaryOp op, float scalar, float* out, const float* x,
                          const StridedLayout& layout, std::int64_t count, cudaStream_t stream);
void launch_binary_dense(BinaryOp op, float* out, const float* a, const float* b,
                         std::int64_t count, cudaStream_t stream);
void launch_binary_strided(BinaryOp op, float* out, const float* a, const float* b,
                           const StridedLayout& layout, std::int64_t count, cudaStream_t stream);

// dst[i] = src[i] (operand 1 strides, zero where broadcast); element size 4 or 8 bytes.
void launch_copy(void* dst, const void* src, int element_bytes, const StridedLayout& layout,
                 std::int64_t count, cudaStream_t stream);
// dst[i] = value, with the value's bit pattern given for the element size (4 or 8 bytes).
void launch_fill(void* dst, std::uint64_t value_bits, int element_bytes,
                 const StridedLayout& layout, std::int64_t count, cudaStream_t stream);
// dst[i] = dst[i] * scale + alpha * src[i] (alpha 0 scales only).
void launch_scale_add(float* dst, float scale, const float* src, float alpha,
                      const StridedLayout& layout, std::int64_t count, cudaStream_t stream);

// Adam's hyper-parameters for one step, as floats (cpu/optimizer_kernels.cpp computes in float).
struct AdamScalars {
  float beta1;
  float beta2;
  float eps;
  float step_size;
  float inverse_sqrt_correction2;
  float l2_decay;
  float decoupled_scale;
};
// Up to kParametersPerLaunch dense parameters with their gradients and up to two state tensors
// each (Adam's moments, SGD's momentum buffer), passed to a kernel by value (about 2 KB of its
// 4 KB parameter space), so an optimizer step over a model is one launch.
inline constexpr int kParametersPerLaunch = 48;
struct ParameterChunk {
  float* parameter[kParametersPerLaunch];
  const float* gradient[kParametersPerLaunch];
  float* first_state[kParametersPerLaunch];
  float* second_state[kParametersPerLaunch];
  std::int64_t count[kParametersPerLaunch];
  int size;
};
// One fused Adam update of every parameter in the chunk (the states are the two moments): block
// row y walks parameter y.
void launch_adam_step(const ParameterChunk& chunk, const AdamScalars& scalars, cudaStream_t stream);

// SGD's hyper-parameters as floats (cpu/optimizer_kernels.cpp computes in float).
struct SgdScalars {
  float alpha;  // -learning rate
  float momentum;
  float weight_decay;
};
// One fused SGD update of every parameter in the chunk (the first state is the momentum buffer,
// unused without momentum).
void launch_sgd_step(const ParameterChunk& chunk, const SgdScalars& scalars, cudaStream_t stream);

// The fused bias, GELU and dropout over dense tensors: mask[i] = philox_mask(draw i) and
// out[i] = gelu(x[i] + bias[i % features]) * mask[i].
void launch_bias_gelu_dropout(float* out, float* mask, const float* x, const float* bias,
                              std::int64_t features, std::int64_t count, float keep_probability,
                              float scale, PhiloxStream stream, cudaStream_t cuda_stream);
// Its gradient with respect to x: grad * mask * gelu'(x + bias[i % features]).
void launch_bias_gelu_mask_backward(float* out, const float* grad, const float* x,
                                    const float* bias, const float* mask, std::int64_t features,
                                    std::int64_t count, cudaStream_t stream);

// Dense random fills with the distributions of engine/src/philox.h: element i takes draw i
// of the stream (draws 2i and 2i + 1 for a normal), as the CPU kernels do.
void launch_uniform(float* out, std::int64_t count, float low, float high, PhiloxStream stream,
                    cudaStream_t cuda_stream);
void launch_normal(float* out, std::int64_t count, float mean, float stddev, PhiloxStream stream,
                   cudaStream_t cuda_stream);
void launch_bernoulli_mask(float* out, std::int64_t count, float keep_probability, float scale,
                           PhiloxStream stream, cudaStream_t cuda_stream);

// Row-wise over a dense [rows, length] matrix.
void launch_row_sum(float* out, const float* x, std::int64_t rows, std::int64_t length,
                    cudaStream_t stream);
// Maximum of each row and its first position (NaN wins, as on the CPU).
void launch_row_max(float* values, std::int64_t* indices, const float* x, std::int64_t rows,
                    std::int64_t length, cudaStream_t stream);
void launch_softmax(float* out, const float* x, std::int64_t rows, std::int64_t length, bool log,
                    cudaStream_t stream);
// Gradient of softmax (y = probabilities) or of log_softmax (y = log-probabilities).
void launch_softmax_backward(float* out, const float* grad, const float* y, std::int64_t rows,
                             std::int64_t length, bool log, cudaStream_t stream);
// Mean of -log_probs[row, target[row]]; NaN when a target is outside [0, classes).
void launch_nll_loss(float* out, const float* log_probs, const std::int64_t* targets,
                     std::int64_t batch, std::int64_t classes, cudaStream_t stream);
// out (zeroed [batch, classes]) gets -grad / batch at each target.
void launch_nll_loss_backward(float* out, const float* grad, const std::int64_t* targets,
                              std::int64_t batch, std::int64_t classes, cudaStream_t stream);

// Fused row kernels (fused_rows.cu) over dense [rows, cols] matrices. Layer normalisation: out,
// and each row's mean and rstd; weight and bias [cols] may be null.
void launch_layer_norm(float* out, float* mean, float* rstd, const float* x, const float* weight,
                       const float* bias, std::int64_t rows, std::int64_t cols, double eps,
                       cudaStream_t stream);
// Its gradient with respect to x; weight may be null.
void launch_layer_norm_input_grad(float* grad_input, const float* grad, const float* x,
                                  const float* weight, const float* mean, const float* rstd,
                                  std::int64_t rows, std::int64_t cols, cudaStream_t stream);
// Its weight and bias gradients in two deterministic steps: partial column sums per chunk of
// rows into [layer_norm_row_chunks(rows), cols] (either output may be null), then the sum of each
// column's partials.
inline constexpr int kLayerNormRowLanes = 8;
inline constexpr std::int64_t kLayerNormMaxRowChunks = 128;
inline std::int64_t layer_norm_row_chunks(std::int64_t rows) {
  const std::int64_t chunks = (rows + kLayerNormRowLanes - 1) / kLayerNormRowLanes;
  return chunks < 1 ? 1 : (chunks < kLayerNormMaxRowChunks ? chunks : kLayerNormMaxRowChunks);
}
void launch_layer_norm_column_partials(float* weight_partials, float* bias_partials,
                                       const float* grad, const float* x, const float* mean,
                                       const float* rstd, std::int64_t rows, std::int64_t cols,
                                       cudaStream_t stream);
void launch_sum_column_partials(float* out, const float* partials, std::int64_t chunks,
                                std::int64_t cols, cudaStream_t stream);
// Cross-entropy from logits [rows, classes]: each row's loss (NaN when its target is outside
// [0, classes)) and log-sum-exp; then the mean of the rows' losses into out[0].
void launch_cross_entropy(float* row_losses, float* log_sum_exp, const float* logits,
                          const std::int64_t* targets, std::int64_t rows, std::int64_t classes,
                          cudaStream_t stream);
void launch_mean_of_rows(float* out, const float* row_losses, std::int64_t rows,
                         cudaStream_t stream);
// grad[0] * (softmax(logits) - onehot(target)) / rows; a row with an invalid target gets NaN.
void launch_cross_entropy_backward(float* grad_logits, const float* grad, const float* logits,
                                   const std::int64_t* targets, const float* log_sum_exp,
                                   std::int64_t rows, std::int64_t classes, cudaStream_t stream);
// out (zeroed) gets grad at offset base + index * step for each element, layout over grad's shape
// with operand 0 = out, 1 = grad, 2 = indices.
void launch_scatter_max_grad(float* out, const float* grad, const std::int64_t* indices,
                             std::int64_t step, const StridedLayout& layout, std::int64_t count,
                             cudaStream_t stream);

// [N, C, H, W] -> [N, C*KH*KW, OH*OW], zero outside the padded image.
void launch_im2col(float* cols, const float* x, const WindowGeometry& geometry,
                   cudaStream_t stream);
// The adjoint: sums columns back into a [N, C, H, W] image (one thread per image element).
void launch_col2im(float* x, const float* cols, const WindowGeometry& geometry,
                   cudaStream_t stream);
void launch_max_pool(float* out, std::int64_t* indices, const float* x,
                     const WindowGeometry& geometry, cudaStream_t stream);
// out (zeroed [N, C, H, W]) accumulates grad at the flat position in `indices` of each window.
void launch_max_pool_backward(float* out, const float* grad, const std::int64_t* indices,
                              const WindowGeometry& geometry, cudaStream_t stream);

}  // namespace tscope::engine::cuda
