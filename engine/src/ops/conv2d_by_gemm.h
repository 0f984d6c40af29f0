#pragma once
// Convolution as im2col + one GEMM per image, and its gradients, composed from the dispatcher's
// im2col, col2im, matmul and sum: the CPU's conv2d kernels, and CUDA's where cuDNN is absent.

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine {

// The output and the unfolded input, which the weight gradient reads.
std::pair<Tensor, Tensor> conv2d_by_gemm(const Tensor& input, const Tensor& weight,
                                         const Conv2dGeometry& geometry);
Tensor conv2d_backward_input_by_gemm(const Tensor& grad, const Tensor& weight,
                                     const Conv2dGeometry& geometry);
Tensor conv2d_backward_weight_by_gemm(const Tensor& grad, const Tensor& cols,
                                      const Conv2dGeometry& geometry);

}  // namespace tscope::engine
