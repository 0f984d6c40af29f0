// Batched matrix product on the CPU through OpenBLAS sgemm. Transposed views are handed to BLAS
// as CblasTrans with their own leading dimension instead of being copied.

#include <cblas.h>

#include <algorithm>

#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

CBLAS_TRANSPOSE blas_transpose(const GemmOperand& operand) {
  return operand.transposed ? CblasTrans : CblasNoTrans;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const auto [batch, m, k, n] = matmul_extents(a, b);
  configure_threads_once();
  Tensor out = empty({batch, m, n}, {.device = a.device()});
  if (out.numel() == 0) return out;
  float* result = out.data<float>();
  if (k == 0) {
    std::fill(result, result + out.numel(), 0.0f);
    return out;
  }
  const MatmulGemm gemm = matmul_gemm(a, b, dense, "BLAS");
  for (std::int64_t i = 0; i < batch; ++i) {
    cblas_sgemm(CblasRowMajor, blas_transpose(gemm.lhs), blas_transpose(gemm.rhs), gemm.m, gemm.n,
                gemm.k, 1.0f, gemm.lhs.data + i * gemm.lhs.batch_stride, gemm.lhs.leading_dimension,
                gemm.rhs.data + i * gemm.rhs.batch_stride, gemm.rhs.leading_dimension, 0.0f,
                result + i * m * n, gemm.n);
  }
  return out;
}

}  // namespace tscope::engine::cpu
