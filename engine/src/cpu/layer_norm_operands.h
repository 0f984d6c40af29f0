#pragma once
// The checks both backends' layer-norm kernels make of what the ops layer passes them, so a
// misuse reads the same on either device.

#include "tscope/engine/tensor.h"

namespace tscope::engine::cpu {

// x a contiguous float32 [rows, cols] matrix; weight and bias undefined or contiguous [cols].
void check_layer_norm_operands(const Tensor& x, const Tensor& weight, const Tensor& bias,
                               const char* op_name);
// As above for x and weight, and grad contiguous of x's shape, mean and rstd contiguous [rows].
void check_layer_norm_backward_operands(const Tensor& grad, const Tensor& x, const Tensor& weight,
                                        const Tensor& mean, const Tensor& rstd);

}  // namespace tscope::engine::cpu
