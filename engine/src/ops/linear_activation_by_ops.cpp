// Each step runs as the op that linear followed by relu or gelu would run, with the same
// operand layouts (the weight read transposed, in place), so the results are bit-identical.

#include "ops/linear_activation_by_ops.h"

#include <array>
#include <span>

#include "tscope/engine/autograd.h"
#include "tscope/engine/dispatch.h"

namespace tscope::engine {

std::pair<Tensor, Tensor> linear_activation_by_ops(const Tensor& x, const Tensor& weight,
                                                   const Tensor& bias, FusedActivation activation) {
  // The caller's op records the gradient.
  const NoGradGuard no_grad;
  const Tensor product =
      run_op<BinaryKernel>(OpKind::kMatmul, x.unsqueeze(0), weight.transpose(0, 1).unsqueeze(0))
          .squeeze(0);
  const Tensor pre_activation = run_op<BinaryKernel>(OpKind::kAdd, product, bias);
  if (activation == FusedActivation::kRelu) {
    return {run_op<UnaryKernel>(OpKind::kRelu, pre_activation), Tensor()};
  }
  return {run_op<UnaryKernel>(OpKind::kGelu, pre_activation), pre_activation};
}

std::pair<Tensor, Tensor> linear_weight_bias_backward_by_ops(const Tensor& grad, const Tensor& x) {
  const NoGradGuard no_grad;
  const Tensor weight_grad_transposed =
      run_op<BinaryKernel>(OpKind::kMatmul, x.transpose(0, 1).unsqueeze(0), grad.unsqueeze(0))
          .squeeze(0);
  constexpr std::array<std::int64_t, 1> kRowDim{0};
  const Tensor bias_grad =
      run_op<ReduceKernel>(OpKind::kSum, grad, std::span<const std::int64_t>(kRowDim))
          .reshape({grad.shape()[1]});
  return {weight_grad_transposed.transpose(0, 1), bias_grad};
}

}  // namespace tscope::engine
