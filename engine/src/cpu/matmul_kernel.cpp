// Batched matrix product on the CPU through OpenBLAS sgemm. Transposed views are handed to BLAS
// as CblasTrans with their own leading dimension instead of being copied.

#include <cblas.h>

#include <algorithm>
#include <climits>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// One operand of a batch of GEMMs: [batch, rows, cols] as BLAS sees it.
struct GemmOperand {
  Tensor storage_owner;  // a dense copy when the view had no BLAS-compatible layout
  const float* data = nullptr;
  CBLAS_TRANSPOSE transpose = CblasNoTrans;
  int leading_dimension = 1;
  std::int64_t batch_stride = 0;
};

int to_blas_int(std::int64_t value) {
  if (value > INT_MAX) {
    throw EngineError("matmul: dimension " + std::to_string(value) + " exceeds what BLAS accepts");
  }
  return static_cast<int>(value);
}

GemmOperand gemm_operand(const Tensor& matrices) {
  const std::int64_t rows = matrices.shape()[1];
  const std::int64_t cols = matrices.shape()[2];
  const std::int64_t row_stride = matrices.strides()[1];
  const std::int64_t col_stride = matrices.strides()[2];
  GemmOperand operand;
  operand.batch_stride = matrices.strides()[0];
  if (col_stride == 1 && (rows == 1 || row_stride >= std::max<std::int64_t>(cols, 1))) {
    operand.data = matrices.data<float>();
    operand.leading_dimension =
        to_blas_int(rows == 1 ? std::max<std::int64_t>(cols, 1) : row_stride);
    return operand;
  }
  if (row_stride == 1 && (cols == 1 || col_stride >= std::max<std::int64_t>(rows, 1))) {
    operand.data = matrices.data<float>();
    operand.transpose = CblasTrans;
    operand.leading_dimension =
        to_blas_int(cols == 1 ? std::max<std::int64_t>(rows, 1) : col_stride);
    return operand;
  }
  operand.storage_owner = dense(matrices);
  operand.data = operand.storage_owner.data<float>();
  operand.leading_dimension = to_blas_int(std::max<std::int64_t>(cols, 1));
  operand.batch_stride = rows * cols;
  return operand;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  require_dtype(a, DType::kFloat32, "matmul");
  require_dtype(b, DType::kFloat32, "matmul");
  if (a.dim() != 3 || b.dim() != 3 || a.shape()[0] != b.shape()[0] ||
      a.shape()[2] != b.shape()[1]) {
    throw EngineError("matmul kernel: expected [B, M, K] and [B, K, N], got " +
                      shape_to_string(a.shape()) + " and " + shape_to_string(b.shape()));
  }
  const std::int64_t batch = a.shape()[0];
  const std::int64_t m = a.shape()[1];
  const std::int64_t k = a.shape()[2];
  const std::int64_t n = b.shape()[2];
  Tensor out = empty({batch, m, n}, {.device = a.device()});
  if (out.numel() == 0) return out;
  float* result = out.data<float>();
  if (k == 0) {
    std::fill(result, result + out.numel(), 0.0f);
    return out;
  }
  const GemmOperand lhs = gemm_operand(a);
  const GemmOperand rhs = gemm_operand(b);
  for (std::int64_t i = 0; i < batch; ++i) {
    cblas_sgemm(CblasRowMajor, lhs.transpose, rhs.transpose, to_blas_int(m), to_blas_int(n),
                to_blas_int(k), 1.0f, lhs.data + i * lhs.batch_stride, lhs.leading_dimension,
                rhs.data + i * rhs.batch_stride, rhs.leading_dimension, 0.0f, result + i * m * n,
                to_blas_int(n));
  }
  return out;
}

}  // namespace tscope::engine::cpu
