// Matrix products with NumPy's rules for 1-D operands and broadcast batch dims, and the linear
// layer built on them.

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

// [batch..., rows, cols] broadcast to `batch` and folded into [product(batch), rows, cols],
// without recording history (the matmul node covers it).
Tensor as_matrix_batch(const Tensor& x, const Shape& batch) {
  const NoGradGuard no_grad;
  Shape expanded = batch;
  expanded.push_back(x.shape()[x.shape().size() - 2]);
  expanded.push_back(x.shape().back());
  return x.expand(expanded).reshape(
      {shape_numel(batch), expanded[expanded.size() - 2], expanded.back()});
}

// A transposed view of a dense matrix (a linear layer's weight.transpose(0, 1)).
bool is_transposed_dense(const Tensor& x) {
  const Shape& shape = x.shape();
  const Shape& strides = x.strides();
  const std::size_t rank = shape.size();
  return rank == 2 && shape[0] > 1 && shape[1] > 1 && strides[0] == 1 && strides[1] == shape[0];
}

enum class Side { kLeft, kRight };

// The gradient of `operand`, the left (a of a @ b) or right factor, given the other factor. For a
// transposed view the product is formed transposed, (grad^T @ other)^T, so that the gradient
// reaching the dense matrix under the view is dense itself and is not copied to be accumulated.
Tensor operand_gradient(const Tensor& grad, const Tensor& other, const Tensor& operand, Side side) {
  const bool left = side == Side::kLeft;
  if (is_transposed_dense(operand) && grad.dim() == 2 && other.dim() == 2) {
    const Tensor product =
        left ? matmul(other, grad.transpose(0, 1)) : matmul(grad.transpose(0, 1), other);
    return product.transpose(0, 1);
  }
  const Tensor product =
      left ? matmul(grad, other.transpose(-1, -2)) : matmul(other.transpose(-1, -2), grad);
  return sum_to(product, operand.shape());
}

Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const std::int64_t m = a.shape()[a.shape().size() - 2];
  const std::int64_t k = a.shape().back();
  const std::int64_t n = b.shape().back();
  if (b.shape()[b.shape().size() - 2] != k) {
    throw EngineError("matmul: shapes " + shape_to_string(a.shape()) + " and " +
                      shape_to_string(b.shape()) + " have mismatched inner dimensions");
  }
  const Shape batch = broadcast_shapes(std::span(a.shape()).first(a.shape().size() - 2),
                                       std::span(b.shape()).first(b.shape().size() - 2));
  const Tensor products =
      run_op<BinaryKernel>(OpKind::kMatmul, as_matrix_batch(a, batch), as_matrix_batch(b, batch));
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor out = make_view(products, shape, contiguous_strides(shape), 0);
  record_if_needed(out, "MatmulBackward", {a, b},
                   [a = a.detach(), b = b.detach()](const Tensor& grad, const GradNeeds& needs) {
                     return std::vector<Tensor>{
                         needs[0] ? operand_gradient(grad, b, a, Side::kLeft) : Tensor(),
                         needs[1] ? operand_gradient(grad, a, b, Side::kRight) : Tensor()};
                   });
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) {
    throw EngineError("matmul: needs tensors of at least one dim, got shapes " +
                      shape_to_string(a.shape()) + " and " + shape_to_string(b.shape()));
  }
  if (a.dim() == 1 && b.dim() == 1)
    return batched_matmul(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
  if (a.dim() == 1) return batched_matmul(a.unsqueeze(0), b).squeeze(-2);
  if (b.dim() == 1) return batched_matmul(a, b.unsqueeze(1)).squeeze(-1);
  return batched_matmul(a, b);
}

Tensor linear(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias) {
  if (weight.dim() != 2) {
    throw EngineError("linear: weight must be [out, in], got " + shape_to_string(weight.shape()));
  }
  // The transposed weight is a view; BLAS reads it with CblasTrans rather than a copy.
  const Tensor out = matmul(x, weight.transpose(0, 1));
  return bias ? add(out, *bias) : out;
}

}  // namespace tscope::engine
