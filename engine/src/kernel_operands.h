#pragma once
// What the CPU and CUDA kernels both check and derive from the operands the ops layer passes
// them, so a misuse reads the same on either device and each rule is written once.

#include <cstdint>
#include <initializer_list>
#include <span>

#include "tscope/engine/dtype.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// Throws EngineError naming `op` unless `tensor` holds `dtype`.
void require_dtype(const Tensor& tensor, DType dtype, const char* op);

// Strides of `tensor` read as a tensor of `shape` it broadcasts to: zero along broadcast dims.
Shape broadcast_strides(const Tensor& tensor, std::span<const std::int64_t> shape);

// copy_: src of dst's dtype, broadcasting to dst's shape.
void check_copy_operands(const Tensor& dst, const Tensor& src);
// add_: float32 dst and src, src broadcasting to dst's shape.
void check_add_inplace_operands(const Tensor& dst, const Tensor& src);

// The features F of float32 contiguous x [..., F] and bias [F] (the fused bias kernels).
std::int64_t checked_bias_features(const Tensor& x, const Tensor& bias, const char* op_name);

// As checked_bias_features, and grad and mask contiguous of x's shape (bias_gelu_dropout_backward).
std::int64_t checked_bias_gelu_dropout_backward_features(const Tensor& grad, const Tensor& x,
                                                         const Tensor& bias, const Tensor& mask);

// float32 grad, logits and log_sum_exp and int64 targets (cross_entropy_backward).
void check_cross_entropy_backward_operands(const Tensor& grad, const Tensor& logits,
                                           const Tensor& targets, const Tensor& log_sum_exp);

// The rows a layer norm normalizes and their length, as both backends' kernels take them.
struct LayerNormExtents {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
// x a contiguous float32 [rows, cols] matrix; weight and bias undefined or contiguous [cols].
LayerNormExtents layer_norm_extents(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    const char* op_name);
// As above for x and weight, and grad contiguous of x's shape, mean and rstd contiguous [rows].
LayerNormExtents layer_norm_backward_extents(const Tensor& grad, const Tensor& x,
                                             const Tensor& weight, const Tensor& mean,
                                             const Tensor& rstd);

// Throws unless the gradients and every state list run parallel to the parameters and each
// parameter's gradient and states are contiguous float32 tensors of its shape.
void check_optimizer_operands(const char* op_name, std::span<const Tensor> parameters,
                              std::span<const Tensor> gradients,
                              std::initializer_list<std::span<const Tensor>> states);

// check_optimizer_operands for sgd_step_: momentum buffers only when `momentum`.
void check_sgd_operands(std::span<const Tensor> parameters, std::span<const Tensor> gradients,
                        std::span<const Tensor> momentum_buffers, bool momentum);

// The extents of a batched matmul of float32 a [B, M, K] and b [B, K, N], as the matmul kernels
// take them; throws EngineError for any other operands.
struct MatmulExtents {
  std::int64_t batch = 0;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t n = 0;
};
MatmulExtents matmul_extents(const Tensor& a, const Tensor& b);

// One operand of a batch of row-major GEMMs, [batch, rows, cols], as BLAS and cuBLAS both take
// it: a view whose rows or columns are dense is passed as it is (transposed where its columns
// are the dense ones) with its own leading dimension; any other view through a dense copy.
struct GemmOperand {
  Tensor storage_owner;  // the dense copy, when one was needed
  const float* data = nullptr;
  bool transposed = false;
  int leading_dimension = 1;
  std::int64_t batch_stride = 0;
};
// `dense` is the backend's contiguous copy; `library` names the GEMM library in the error when a
// dimension exceeds its int arguments.
GemmOperand gemm_operand(const Tensor& matrices, Tensor (*dense)(const Tensor&),
                         const char* library);
// `value` as the int a GEMM library takes, or EngineError naming `library`.
int gemm_int(std::int64_t value, const char* library);

// A batched matmul of operands matmul_extents accepted, as a GEMM library takes it: both operands
// (gemm_operand) and M, N and K as its ints (gemm_int).
struct MatmulGemm {
  GemmOperand lhs;
  GemmOperand rhs;
  int m = 0;
  int n = 0;
  int k = 0;
};
MatmulGemm matmul_gemm(const Tensor& a, const Tensor& b, Tensor (*dense)(const Tensor&),
                       const char* library);

}  // namespace tscope::engine
