#pragma once
// The CUDA implementations registered in the dispatcher; each matches a kernel signature and the
// CPU kernel of the same name (cpu/cpu_kernels.h), which is its reference in the tests.

#include <cstdint>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tscope/engine/kernel_signatures.h"
#include "tscope/engine/op_table.h"

namespace tscope::engine::cuda {

// Every op's kernel, named as in op_table.h. Where each differs from its CPU reference:
// - matmul: cuBLAS (cuda/matmul.cpp), TF32 when cuda_allow_tf32() is on.
// - conv2d and its gradients: cuDNN (cuda/cudnn_convolution.cpp) in builds that found it, else
//   im2col + cuBLAS composed as on the CPU (cuda/gemm_convolution.cpp).
// - nll_loss, cross_entropy: a target outside [0, classes) makes the loss (and its row's
//   gradient) NaN, since a device cannot throw; the CPU kernels throw. cross_entropy runs one
//   block or warp per row, as the CPU kernel.
// - layer_norm: one block or warp per row (cuda/fused_rows.cu); the weight and bias gradients
//   are column sums in a fixed order, so every run gives the same bits.
// - uniform, normal, bernoulli_mask and bias_gelu_dropout's mask: drawn on the device from the
//   generator's Philox stream, element i from draw i, so a seed gives the CPU's values.
// - linear_activation, linear_weight_bias_backward: cuBLASLt epilogues (cuda/cublaslt_linear.cpp),
//   bias and activation fused into the GEMM and the bias gradient into the weight gradient's GEMM.
// - adam_step, sgd_step: every parameter in one launch per 48 parameters.
TSCOPE_ENGINE_OPS(TSCOPE_DECLARE_OP_KERNEL)

// A contiguous tensor with x's values: x itself when already contiguous, else a device copy.
Tensor dense(const Tensor& x);

}  // namespace tscope::engine::cuda
