// The fused linear layer's weight and bias gradients on the CPU: the matmul and sum ops the
// unfused layer's backward runs, with the same operand layouts, so the results are bit-identical.

#include <array>
#include <span>

#include "cpu/cpu_kernels.h"
#include "dispatch.h"
#include "tscope/engine/autograd.h"

namespace tscope::engine::cpu {

std::pair<Tensor, Tensor> linear_weight_bias_backward(const Tensor& grad, const Tensor& x) {
  const NoGradGuard no_grad;
  // grad^T @ x, as the unfused backward forms the gradient of weight.transpose(0, 1) (its
  // transposed product), so the weight's gradient is dense and bit-identical to that layer's.
  const Tensor weight_grad =
      run_op<BinaryKernel>(OpKind::kMatmul, grad.transpose(0, 1).unsqueeze(0), x.unsqueeze(0))
          .squeeze(0);
  constexpr std::array<std::int64_t, 1> kRowDim{0};
  const Tensor bias_grad =
      run_op<ReduceKernel>(OpKind::kSum, grad, std::span<const std::int64_t>(kRowDim))
          .reshape({grad.shape()[1]});
  return {weight_grad, bias_grad};
}

}  // namespace tscope::engine::cpu
