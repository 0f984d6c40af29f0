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

// Every op's kernel, named as in op_table.h. conv2d and its gradients are one GEMM per image
// over its unfolded patches (cpu/conv2d_image_gemm.cpp); linear_activation is the matmul
// op then one bias and activation pass; linear_weight_bias_backward is composed from matmul and
// sum (cpu/linear_weight_bias_backward.cpp).
TSCOPE_ENGINE_OPS(TSCOPE_DECLARE_OP_KERNEL)

// conv2d and its gradients composed from the im2col, matmul, sum and col2im ops, one GEMM per
// image (cpu/conv2d_by_gemm.cpp): CUDA's kernels without cuDNN, and the CPU kernels' reference.
// The forward's saved tensor is the per-image unfolded input [N, C*KH*KW, OH*OW].
std::pair<Tensor, Tensor> conv2d_by_image_gemms(const Tensor& input, const Tensor& weight,
                                                const Conv2dGeometry& geometry);
Tensor conv2d_backward_input_by_image_gemms(const Tensor& grad, const Tensor& weight,
                                            const Conv2dGeometry& geometry);
Tensor conv2d_backward_weight_by_image_gemms(const Tensor& grad, const Tensor& cols,
                                             const Conv2dGeometry& geometry);

// sum's general strided path, the reference of its dense fast path (cpu/reduction_kernels.cpp).
Tensor sum_strided(const Tensor& x, std::span<const std::int64_t> dims);

// add through the strided, broadcasting loop: the reference of the elementwise fast paths, which
// every binary op shares (cpu/elementwise_kernels.cpp).
Tensor add_strided(const Tensor& a, const Tensor& b);

// A contiguous tensor with x's values: x itself when already contiguous, else a copy.
Tensor dense(const Tensor& x);

}  // namespace tscope::engine::cpu
