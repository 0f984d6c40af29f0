// The fused linear layer on the CPU as a GEMM with an epilogue, as cuBLASLt runs it on CUDA: the
// product through the matmul op (OpenBLAS), then one pass that adds the bias and applies the
// activation in place, where the unfused layer runs add and relu (or gelu) as two more passes
// over the output with a temporary between them. The float arithmetic is the unfused ops', so
// the results are bit-identical.

#include "cpu/cpu_kernels.h"
#include "cpu/gelu_math.h"
#include "dispatch.h"
#include "kernel_operands.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {

std::pair<Tensor, Tensor> linear_activation(const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, FusedActivation activation) {
  for (const Tensor* operand : {&x, &weight, &bias}) {
    require_dtype(*operand, DType::kFloat32, "linear_activation");
  }
  if (x.dim() != 2 || weight.dim() != 2 || bias.dim() != 1 || x.size(1) != weight.size(1) ||
      bias.size(0) != weight.size(0)) {
    throw EngineError("linear_activation: expects x [M, K], weight [N, K] and bias [N], got " +
                      shape_to_string(x.shape()) + ", " + shape_to_string(weight.shape()) +
                      " and " + shape_to_string(bias.shape()));
  }
  // The caller's op records the gradient. The weight is read transposed in place, as linear does.
  const NoGradGuard no_grad;
  Tensor product =
      run_op<BinaryKernel>(OpKind::kMatmul, x.unsqueeze(0), weight.transpose(0, 1).unsqueeze(0))
          .squeeze(0);
  const Tensor shift = bias.contiguous();
  const float* bias_values = shift.data<float>();
  const std::int64_t rows = product.size(0);
  const std::int64_t features = product.size(1);
  float* values = product.data<float>();
  if (activation == FusedActivation::kRelu) {
    for (std::int64_t row = 0; row < rows; ++row) {
      float* out = values + row * features;
      for (std::int64_t j = 0; j < features; ++j) {
        const float pre_activation = out[j] + bias_values[j];
        out[j] = pre_activation > 0.0f ? pre_activation : 0.0f;
      }
    }
    return {std::move(product), Tensor()};
  }
  // GELU's gradient needs the pre-activation: the product becomes it, the output is new.
  Tensor out = empty(product.shape());
  float* result = out.data<float>();
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t j = 0; j < features; ++j) {
      const std::int64_t i = row * features + j;
      values[i] += bias_values[j];
      result[i] = gelu_value(values[i]);
    }
  }
  return {std::move(out), std::move(product)};
}

}  // namespace tscope::engine::cpu
