// Batched matrix products through cuBLAS. cuBLAS is column-major: a row-major C = A B is computed
// as the column-major C^T = B^T A^T, which reads the same memory with no copies. Transposed views
// become CUBLAS_OP_T with their own leading dimension, as the CPU kernel does with CblasTrans.

#include <climits>

#include "cuda/cuda_check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_context.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cuda {
namespace {

struct GemmOperand {
  Tensor storage_owner;  // a dense copy when the view had no cuBLAS-compatible layout
  const float* data = nullptr;
  cublasOperation_t operation = CUBLAS_OP_N;
  int leading_dimension = 1;
  long long batch_stride = 0;
};

int to_cublas_int(std::int64_t value) {
  if (value > INT_MAX) {
    throw EngineError("matmul: dimension " + std::to_string(value) +
                      " exceeds what cuBLAS accepts");
  }
  return static_cast<int>(value);
}

// The column-major view of row-major [batch, rows, cols] `matrices`, read as its transpose.
GemmOperand gemm_operand(const Tensor& matrices) {
  const std::int64_t rows = matrices.shape()[1];
  const std::int64_t cols = matrices.shape()[2];
  const std::int64_t row_stride = matrices.strides()[1];
  const std::int64_t col_stride = matrices.strides()[2];
  GemmOperand operand;
  operand.batch_stride = matrices.strides()[0];
  if (col_stride == 1 && (rows == 1 || row_stride >= std::max<std::int64_t>(cols, 1))) {
    operand.data = static_cast<const float*>(matrices.raw_data());
    operand.leading_dimension =
        to_cublas_int(rows == 1 ? std::max<std::int64_t>(cols, 1) : row_stride);
    return operand;
  }
  if (row_stride == 1 && (cols == 1 || col_stride >= std::max<std::int64_t>(rows, 1))) {
    operand.data = static_cast<const float*>(matrices.raw_data());
    operand.operation = CUBLAS_OP_T;
    operand.leading_dimension =
        to_cublas_int(cols == 1 ? std::max<std::int64_t>(rows, 1) : col_stride);
    return operand;
  }
  operand.storage_owner = dense(matrices);
  operand.data = static_cast<const float*>(operand.storage_owner.raw_data());
  operand.leading_dimension = to_cublas_int(std::max<std::int64_t>(cols, 1));
  operand.batch_stride = rows * cols;
  return operand;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dtype() != DType::kFloat32 || b.dtype() != DType::kFloat32 || a.dim() != 3 ||
      b.dim() != 3 || a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1]) {
    throw EngineError("matmul kernel: expected float32 [B, M, K] and [B, K, N], got " +
                      shape_to_string(a.shape()) + " and " + shape_to_string(b.shape()));
  }
  const std::int64_t batch = a.shape()[0];
  const std::int64_t m = a.shape()[1];
  const std::int64_t k = a.shape()[2];
  const std::int64_t n = b.shape()[2];
  if (k == 0) return zeros({batch, m, n}, {.device = a.device()});
  Tensor out = empty({batch, m, n}, {.device = a.device()});
  if (out.numel() == 0) return out;
  const cublasHandle_t handle = cublas_handle(a.device());
  const GemmOperand lhs = gemm_operand(a);
  const GemmOperand rhs = gemm_operand(b);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const cublasComputeType_t compute =
      cuda_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TSCOPE_CUDA_CHECK(cublasGemmStridedBatchedEx(
      handle, rhs.operation, lhs.operation, to_cublas_int(n), to_cublas_int(m), to_cublas_int(k),
      &alpha, rhs.data, CUDA_R_32F, rhs.leading_dimension, rhs.batch_stride, lhs.data, CUDA_R_32F,
      lhs.leading_dimension, lhs.batch_stride, &beta, out.raw_data(), CUDA_R_32F, to_cublas_int(n),
      static_cast<long long>(m * n), to_cublas_int(batch), compute, CUBLAS_GEMM_DEFAULT));
  return out;
}

}  // namespace tscope::engine::cuda
