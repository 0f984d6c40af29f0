#include "kernel_operands.h"

#include <algorithm>
#include <climits>
#include <string>

#include "tscope/engine/errors.h"

namespace tscope::engine {

void require_dtype(const Tensor& tensor, DType dtype, const char* op) {
  if (tensor.dtype() != dtype) {
    throw EngineError(std::string(op) + ": expected a " + std::string(dtype_name(dtype)) +
                      " tensor, got " + std::string(dtype_name(tensor.dtype())));
  }
}

Shape broadcast_strides(const Tensor& tensor, std::span<const std::int64_t> shape) {
  Shape strides(shape.size(), 0);
  const std::size_t rank = static_cast<std::size_t>(tensor.dim());
  const std::size_t lead = shape.size() - rank;
  for (std::size_t i = 0; i < rank; ++i) {
    strides[lead + i] = tensor.shape()[i] == 1 ? 0 : tensor.strides()[i];
  }
  return strides;
}

void check_copy_operands(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype()) {
    throw EngineError("copy_: source is " + std::string(dtype_name(src.dtype())) +
                      ", destination " + std::string(dtype_name(dst.dtype())));
  }
  if (broadcast_shapes(dst.shape(), src.shape()) != dst.shape()) {
    throw EngineError("copy_: source of shape " + shape_to_string(src.shape()) +
                      " does not broadcast to " + shape_to_string(dst.shape()));
  }
}

void check_add_inplace_operands(const Tensor& dst, const Tensor& src) {
  require_dtype(dst, DType::kFloat32, "add_");
  require_dtype(src, DType::kFloat32, "add_");
  if (broadcast_shapes(dst.shape(), src.shape()) != dst.shape()) {
    throw EngineError("add_: operand of shape " + shape_to_string(src.shape()) +
                      " does not broadcast to " + shape_to_string(dst.shape()));
  }
}

std::int64_t checked_bias_features(const Tensor& x, const Tensor& bias, const char* op_name) {
  require_dtype(x, DType::kFloat32, op_name);
  require_dtype(bias, DType::kFloat32, op_name);
  if (!x.is_contiguous() || !bias.is_contiguous() || bias.dim() != 1 || x.dim() == 0 ||
      x.size(-1) != bias.size(0)) {
    throw EngineError(std::string(op_name) + ": expects contiguous x [..., F] and bias [F], got " +
                      shape_to_string(x.shape()) + " and " + shape_to_string(bias.shape()));
  }
  return bias.size(0);
}

std::int64_t checked_bias_gelu_dropout_backward_features(const Tensor& grad, const Tensor& x,
                                                         const Tensor& bias, const Tensor& mask) {
  const std::int64_t features = checked_bias_features(x, bias, "bias_gelu_dropout_backward");
  require_dtype(grad, DType::kFloat32, "bias_gelu_dropout_backward");
  if (!grad.is_contiguous() || !mask.is_contiguous() || grad.shape() != x.shape() ||
      mask.shape() != x.shape()) {
    throw EngineError("bias_gelu_dropout_backward: grad and mask must be contiguous " +
                      shape_to_string(x.shape()));
  }
  return features;
}

void check_cross_entropy_backward_operands(const Tensor& grad, const Tensor& logits,
                                           const Tensor& targets, const Tensor& log_sum_exp) {
  require_dtype(grad, DType::kFloat32, "cross_entropy_backward");
  require_dtype(logits, DType::kFloat32, "cross_entropy_backward");
  require_dtype(targets, DType::kInt64, "cross_entropy_backward");
  require_dtype(log_sum_exp, DType::kFloat32, "cross_entropy_backward");
}

LayerNormExtents layer_norm_extents(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    const char* op_name) {
  require_dtype(x, DType::kFloat32, op_name);
  auto fits = [&](const Tensor& affine) {
    if (!affine.defined()) return true;
    require_dtype(affine, DType::kFloat32, op_name);
    return affine.is_contiguous() && affine.dim() == 1 && affine.size(0) == x.size(1);
  };
  if (x.dim() != 2 || !x.is_contiguous() || !fits(weight) || !fits(bias)) {
    throw EngineError(std::string(op_name) +
                      ": expects contiguous x [rows, cols] and weight and bias [cols] or none, "
                      "got x " +
                      shape_to_string(x.shape()));
  }
  return {x.size(0), x.size(1)};
}

LayerNormExtents layer_norm_backward_extents(const Tensor& grad, const Tensor& x,
                                             const Tensor& weight, const Tensor& mean,
                                             const Tensor& rstd) {
  constexpr const char* kOpName = "layer_norm_backward";
  const LayerNormExtents extents = layer_norm_extents(x, weight, Tensor(), kOpName);
  require_dtype(grad, DType::kFloat32, kOpName);
  require_dtype(mean, DType::kFloat32, kOpName);
  require_dtype(rstd, DType::kFloat32, kOpName);
  const Shape rows{extents.rows};
  if (!grad.is_contiguous() || grad.shape() != x.shape() || !mean.is_contiguous() ||
      !rstd.is_contiguous() || mean.shape() != rows || rstd.shape() != rows) {
    throw EngineError("layer_norm_backward: expects grad contiguous " + shape_to_string(x.shape()) +
                      " and mean and rstd contiguous " + shape_to_string(rows) + ", got " +
                      shape_to_string(grad.shape()) + ", " + shape_to_string(mean.shape()) +
                      " and " + shape_to_string(rstd.shape()));
  }
  return extents;
}

void check_optimizer_operands(const char* op_name, std::span<const Tensor> parameters,
                              std::span<const Tensor> gradients,
                              std::initializer_list<std::span<const Tensor>> states) {
  bool parallel = gradients.size() == parameters.size();
  for (const std::span<const Tensor> state : states)
    parallel &= state.size() == parameters.size();
  if (!parallel) {
    std::string sizes;
    for (const std::span<const Tensor> state : states)
      sizes += "/" + std::to_string(state.size());
    throw EngineError(std::string(op_name) + ": " + std::to_string(parameters.size()) +
                      " parameters but " + std::to_string(gradients.size()) +
                      " gradients and state lists of " + (sizes.empty() ? "-" : sizes.substr(1)));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Shape& shape = parameters[i].shape();
    const auto check = [&](const Tensor& tensor) {
      require_dtype(tensor, DType::kFloat32, op_name);
      if (!tensor.is_contiguous() || tensor.shape() != shape) {
        throw EngineError(std::string(op_name) + ": parameter " + std::to_string(i) +
                          ", its gradient and state must be contiguous tensors of shape " +
                          shape_to_string(shape));
      }
    };
    check(parameters[i]);
    check(gradients[i]);
    for (const std::span<const Tensor> state : states)
      check(state[i]);
  }
}

void check_sgd_operands(std::span<const Tensor> parameters, std::span<const Tensor> gradients,
                        std::span<const Tensor> momentum_buffers, bool momentum) {
  if (momentum) {
    check_optimizer_operands("sgd_step_", parameters, gradients, {momentum_buffers});
  } else {
    check_optimizer_operands("sgd_step_", parameters, gradients, {});
  }
}

MatmulExtents matmul_extents(const Tensor& a, const Tensor& b) {
  require_dtype(a, DType::kFloat32, "matmul");
  require_dtype(b, DType::kFloat32, "matmul");
  if (a.dim() != 3 || b.dim() != 3 || a.shape()[0] != b.shape()[0] ||
      a.shape()[2] != b.shape()[1]) {
    throw EngineError("matmul kernel: expected [B, M, K] and [B, K, N], got " +
                      shape_to_string(a.shape()) + " and " + shape_to_string(b.shape()));
  }
  return {.batch = a.shape()[0], .m = a.shape()[1], .k = a.shape()[2], .n = b.shape()[2]};
}

int gemm_int(std::int64_t value, const char* library) {
  if (value > INT_MAX) {
    throw EngineError("matmul: dimension " + std::to_string(value) + " exceeds what " +
                      std::string(library) + " accepts");
  }
  return static_cast<int>(value);
}

GemmOperand gemm_operand(const Tensor& matrices, Tensor (*dense)(const Tensor&),
                         const char* library) {
  const std::int64_t rows = matrices.shape()[1];
  const std::int64_t cols = matrices.shape()[2];
  const std::int64_t row_stride = matrices.strides()[1];
  const std::int64_t col_stride = matrices.strides()[2];
  GemmOperand operand;
  operand.batch_stride = matrices.strides()[0];
  if (col_stride == 1 && (rows == 1 || row_stride >= std::max<std::int64_t>(cols, 1))) {
    operand.data = matrices.data<float>();
    operand.leading_dimension =
        gemm_int(rows == 1 ? std::max<std::int64_t>(cols, 1) : row_stride, library);
    return operand;
  }
  if (row_stride == 1 && (cols == 1 || col_stride >= std::max<std::int64_t>(rows, 1))) {
    operand.data = matrices.data<float>();
    operand.transposed = true;
    operand.leading_dimension =
        gemm_int(cols == 1 ? std::max<std::int64_t>(rows, 1) : col_stride, library);
    return operand;
  }
  operand.storage_owner = dense(matrices);
  operand.data = operand.storage_owner.data<float>();
  operand.leading_dimension = gemm_int(std::max<std::int64_t>(cols, 1), library);
  operand.batch_stride = rows * cols;
  return operand;
}

MatmulGemm matmul_gemm(const Tensor& a, const Tensor& b, Tensor (*dense)(const Tensor&),
                       const char* library) {
  MatmulGemm gemm{.lhs = gemm_operand(a, dense, library), .rhs = gemm_operand(b, dense, library)};
  gemm.m = gemm_int(a.shape()[1], library);
  gemm.n = gemm_int(b.shape()[2], library);
  gemm.k = gemm_int(a.shape()[2], library);
  return gemm;
}

}  // namespace tscope::engine
