#pragma once
// The fused linear layer's weight and bias gradients composed from the dispatcher's matmul and
// sum, in the order the unfused backward runs them: the CPU's kernel for it.

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine {

std::pair<Tensor, Tensor> linear_weight_bias_backward_by_ops(const Tensor& grad, const Tensor& x);

}  // namespace tscope::engine
