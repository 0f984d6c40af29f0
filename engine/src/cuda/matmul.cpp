// Batched matrix products through cuBLAS. cuBLAS is column-major: a row-major C = A B is computed
// as the column-major C^T = B^T A^T, which reads the same memory with no copies. Transposed views
// become CUBLAS_OP_T with their own leading dimension, as the CPU kernel does with CblasTrans.

#include "cuda/cuda_check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_context.h"
#include "kernel_operands.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cuda {
namespace {

constexpr const char* kLibrary = "cuBLAS";

// The operand read as its transpose: cuBLAS is column-major.
cublasOperation_t cublas_operation(const GemmOperand& operand) {
  return operand.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const auto [batch, m, k, n] = matmul_extents(a, b);
  if (k == 0) return zeros({batch, m, n}, {.device = a.device()});
  Tensor out = empty({batch, m, n}, {.device = a.device()});
  if (out.numel() == 0) return out;
  const cublasHandle_t handle = cublas_handle(a.device());
  const MatmulGemm gemm = matmul_gemm(a, b, dense, kLibrary);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const cublasComputeType_t compute =
      cuda_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TSCOPE_CUDA_CHECK(cublasGemmStridedBatchedEx(
      handle, cublas_operation(gemm.rhs), cublas_operation(gemm.lhs), gemm.n, gemm.m, gemm.k,
      &alpha, gemm.rhs.data, CUDA_R_32F, gemm.rhs.leading_dimension,
      static_cast<long long>(gemm.rhs.batch_stride), gemm.lhs.data, CUDA_R_32F,
      gemm.lhs.leading_dimension, static_cast<long long>(gemm.lhs.batch_stride), &beta,
      out.raw_data(), CUDA_R_32F, gemm.n, static_cast<long long>(m * n), gemm_int(batch, kLibrary),
      compute, CUBLAS_GEMM_DEFAULT));
  return out;
}

}  // namespace tscope::engine::cuda
