// Batched matrix product on the CPU through OpenBLAS sgemm. Transposed views are handed to BLAS
// as CblasTrans with their own leading dimension instead of being copied.
//
// A product large enough to share is cut into blocks of the output's longer side and the blocks
// are run as single-threaded GEMMs on the intra-op pool (parallel_gemms), not split by OpenBLAS'
// own threads: OpenBLAS waits for each of its threads' fixed share, so one thread that the system
// holds off a core stalls the product (measured: the MLP's two-thread step 1.0 -> 15 ms while
// other processes ran at the lowest priority), where the pool's caller claims a late worker's
// blocks itself.

#include <cblas.h>

#include <algorithm>

#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// Rows (or columns) of the output per block: a multiple of OpenBLAS' register tiles, so that only
// a product's last block has a ragged edge.
constexpr std::int64_t kBlockSide = 16;
// Multiply-adds a part gets at least (about 5 us at one thread): a smaller product runs as one
// GEMM on the calling thread, since waking a worker costs a few microseconds.
constexpr std::int64_t kMultiplyAddsPerPart = std::int64_t{1} << 18;

CBLAS_TRANSPOSE blas_transpose(const GemmOperand& operand) {
  return operand.transposed ? CblasTrans : CblasNoTrans;
}

// Where row `row` of op(X) starts, for X the operand's matrix at `matrix`.
const float* row_of(const GemmOperand& operand, const float* matrix, std::int64_t row) {
  return operand.transposed ? matrix + row : matrix + row * operand.leading_dimension;
}

// Where column `column` of op(X) starts.
const float* column_of(const GemmOperand& operand, const float* matrix, std::int64_t column) {
  return operand.transposed ? matrix + column * operand.leading_dimension : matrix + column;
}

// The product of matrix `index` of the batch, rows or columns [first, last) of its output.
class BlockedProduct {
 public:
  BlockedProduct(const MatmulGemm& gemm, float* result)
      : gemm_(gemm), result_(result), split_rows_(gemm.m >= gemm.n) {}

  // Splitting the output's longer side: each block then packs its share of the larger operand
  // and the whole of the smaller one.
  std::int64_t side() const { return split_rows_ ? gemm_.m : gemm_.n; }

  void run(std::int64_t index, std::int64_t first, std::int64_t last) const {
    const float* lhs = gemm_.lhs.data + index * gemm_.lhs.batch_stride;
    const float* rhs = gemm_.rhs.data + index * gemm_.rhs.batch_stride;
    float* out = result_ + index * std::int64_t{gemm_.m} * gemm_.n;
    const auto size = static_cast<int>(last - first);
    if (split_rows_) {
      lhs = row_of(gemm_.lhs, lhs, first);
      out += first * gemm_.n;
    } else {
      rhs = column_of(gemm_.rhs, rhs, first);
      out += first;
    }
    cblas_sgemm(CblasRowMajor, blas_transpose(gemm_.lhs), blas_transpose(gemm_.rhs),
                split_rows_ ? size : gemm_.m, split_rows_ ? gemm_.n : size, gemm_.k, 1.0f, lhs,
                gemm_.lhs.leading_dimension, rhs, gemm_.rhs.leading_dimension, 0.0f, out, gemm_.n);
  }

 private:
  const MatmulGemm& gemm_;
  float* result_;
  bool split_rows_;
};

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
  const BlockedProduct product(gemm, result);
  const std::int64_t side = product.side();
  const std::int64_t blocks = (side + kBlockSide - 1) / kBlockSide;
  // Blocks of all the batch's products in a row; part p runs blocks [p * total / parts,
  // (p + 1) * total / parts), one GEMM per product it touches.
  const std::int64_t total = batch * blocks;
  const double multiply_adds =
      static_cast<double>(batch) * static_cast<double>(m * n) * static_cast<double>(k);
  const auto parts = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(
             std::min(multiply_adds / kMultiplyAddsPerPart, static_cast<double>(total))));
  parallel_gemms(parts, [&](std::int64_t first_part, std::int64_t last_part) {
    const std::int64_t begin = first_part * total / parts;
    const std::int64_t end = last_part * total / parts;
    for (std::int64_t block = begin; block < end;) {
      const std::int64_t index = block / blocks;
      const std::int64_t stop = std::min(end, (index + 1) * blocks);
      product.run(index, (block - index * blocks) * kBlockSide,
                  std::min(side, (stop - index * blocks) * kBlockSide));
      block = stop;
    }
  });
  return out;
}

}  // namespace tscope::engine::cpu
