#pragma once
// The CPU implementations registered in the dispatcher; each matches a kernel signature.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tscope/engine/kernel_signatures.h"
#include "tscope/engine/op_table.h"

namespace tscope::engine::cpu {

// Every op's kernel, named as in op_table.h. conv2d and its gradients are im2col + GEMM composed
// from ops (cpu/conv2d_by_gemm.cpp, also CUDA's without cuDNN); linear_activation is the matmul
// op then one bias and activation pass; linear_weight_bias_backward is composed from matmul and
// sum (cpu/linear_weight_bias_backward.cpp).
TSCOPE_ENGINE_OPS(TSCOPE_DECLARE_OP_KERNEL)

// A contiguous tensor with x's values: x itself when already contiguous, else a copy.
Tensor dense(const Tensor& x);

}  // namespace tscope::engine::cpu
