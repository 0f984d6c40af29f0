// Reductions over dims (sum, mean, max) and sum_to, the adjoint of broadcasting.

#include <algorithm>
#include <numeric>

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

Shape normalise_dims(const Shape& dims, std::int64_t rank, const char* op) {
  Shape wrapped;
  wrapped.reserve(dims.size());
  for (const std::int64_t dim : dims)
    wrapped.push_back(wrap_dim(dim, rank, op));
  std::ranges::sort(wrapped);
  if (std::ranges::adjacent_find(wrapped) != wrapped.end()) {
    throw EngineError(std::string(op) + ": dimension repeated in " + shape_to_string(dims));
  }
  return wrapped;
}

Shape all_dims(const Tensor& x) {
  Shape dims(static_cast<std::size_t>(x.dim()));
  std::iota(dims.begin(), dims.end(), std::int64_t{0});
  return dims;
}

// The kept-dims result of a kernel seen without the reduced dims (a view of dense memory).
Tensor drop_reduced_dims(const Tensor& kept, const Shape& dims) {
  Shape shape;
  for (std::size_t i = 0; i < kept.shape().size(); ++i) {
    if (!std::ranges::binary_search(dims, static_cast<std::int64_t>(i))) {
      shape.push_back(kept.shape()[i]);
    }
  }
  return make_view(kept, shape, contiguous_strides(shape), kept.offset());
}

}  // namespace

Tensor sum(const Tensor& x) {
  return sum(x, all_dims(x), false);
}

Tensor sum(const Tensor& x, const Shape& dims, bool keepdim) {
  const Shape reduced = normalise_dims(dims, x.dim(), "sum");
  const Tensor kept = run_op<ReduceKernel>(OpKind::kSum, x, std::span<const std::int64_t>(reduced));
  Tensor out = keepdim ? kept : drop_reduced_dims(kept, reduced);
  record_if_needed(
      out, "SumBackward", {x},
      [kept_shape = kept.shape(), input_shape = x.shape()](const Tensor& grad, const GradNeeds&) {
        return std::vector<Tensor>{grad.reshape(kept_shape).expand(input_shape)};
      });
  return out;
}

Tensor mean(const Tensor& x) {
  return mean(x, all_dims(x), false);
}

Tensor mean(const Tensor& x, const Shape& dims, bool keepdim) {
  const Shape reduced = normalise_dims(dims, x.dim(), "mean");
  std::int64_t count = 1;
  for (const std::int64_t dim : reduced)
    count *= x.shape()[static_cast<std::size_t>(dim)];
  return mul(sum(x, reduced, keepdim), 1.0 / static_cast<double>(count));
}

Tensor max(const Tensor& x) {
  const Tensor flat = x.reshape({-1});
  return max(flat, 0, false).values;
}

MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim) {
  const std::int64_t wrapped = wrap_dim(dim, x.dim(), "max");
  auto [values, indices] = run_op<ArgReduceKernel>(OpKind::kMax, x, wrapped);
  const Shape reduced{wrapped};
  MaxResult result{keepdim ? values : drop_reduced_dims(values, reduced),
                   keepdim ? indices : drop_reduced_dims(indices, reduced)};
  record_if_needed(result.values, "MaxBackward", {x},
                   [indices = indices, kept_shape = values.shape(), input_shape = x.shape(),
                    wrapped](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_op<ArgReduceBackwardKernel>(
                         OpKind::kMaxBackward, grad.reshape(kept_shape), indices, wrapped,
                         std::span<const std::int64_t>(input_shape))};
                   });
  return result;
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  const auto rank = static_cast<std::size_t>(x.dim());
  if (shape.size() > rank || broadcast_shapes(shape, x.shape()) != x.shape()) {
    throw EngineError("sum_to: shape " + shape_to_string(x.shape()) + " is not a broadcast of " +
                      shape_to_string(shape));
  }
  const std::size_t lead = rank - shape.size();
  Shape dims;
  for (std::size_t i = 0; i < rank; ++i) {
    if (i < lead || (shape[i - lead] == 1 && x.shape()[i] != 1)) {
      dims.push_back(static_cast<std::int64_t>(i));
    }
  }
  return sum(x, dims, true).reshape(shape);
}

}  // namespace tscope::engine
