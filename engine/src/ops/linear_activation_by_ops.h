#pragma once
// The fused linear layer composed from the dispatcher's matmul, add, activation and sum, in the
// order the unfused ops run: the CPU's kernels for it, and the values every backend must match.

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine {

std::pair<Tensor, Tensor> linear_activation_by_ops(const Tensor& x, const Tensor& weight,
                                                   const Tensor& bias, FusedActivation activation);
std::pair<Tensor, Tensor> linear_weight_bias_backward_by_ops(const Tensor& grad, const Tensor& x);

}  // namespace tscope::engine
