// CPU reductions: sum over any set of dims (accumulated in double), and max along one dim with
// the position of each maximum, plus its gradient routed back to those positions.

#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

Shape kept_shape(const Tensor& x, std::span<const std::int64_t> dims) {
  Shape shape = x.shape();
  for (const std::int64_t dim : dims)
    shape[static_cast<std::size_t>(dim)] = 1;
  return shape;
}

bool is_suffix(std::span<const std::int64_t> dims, std::int64_t rank) {
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[dims.size() - 1 - i] != rank - 1 - static_cast<std::int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

Tensor sum(const Tensor& x, std::span<const std::int64_t> dims) {
  require_dtype(x, DType::kFloat32, "sum");
  const Shape shape = kept_shape(x, dims);
  Tensor out = empty(shape, {.device = x.device()});
  float* result = out.data<float>();
  const float* input = x.data<float>();
  const std::int64_t outputs = out.numel();
  if (x.is_contiguous() && is_suffix(dims, x.dim())) {
    // Reducing trailing dims of a dense tensor: each output sums one contiguous run.
    const std::int64_t run = outputs == 0 ? 0 : x.numel() / outputs;
    for (std::int64_t row = 0; row < outputs; ++row) {
      double total = 0.0;
      const float* values = input + row * run;
      for (std::int64_t i = 0; i < run; ++i)
        total += values[i];
      result[row] = static_cast<float>(total);
    }
    return out;
  }
  std::vector<double> totals(static_cast<std::size_t>(outputs), 0.0);
  const Shape totals_strides = broadcast_strides(out, x.shape());
  for_each_strided<2>(x.shape(), {totals_strides.data(), x.strides().data()},
                      [&](const std::array<std::int64_t, 2>& at) {
                        totals[static_cast<std::size_t>(at[0])] += input[at[1]];
                      });
  for (std::int64_t i = 0; i < outputs; ++i) {
    result[i] = static_cast<float>(totals[static_cast<std::size_t>(i)]);
  }
  return out;
}

std::pair<Tensor, Tensor> max(const Tensor& x, std::int64_t dim) {
  require_dtype(x, DType::kFloat32, "max");
  const auto d = static_cast<std::size_t>(dim);
  const std::int64_t extent = x.shape()[d];
  if (extent == 0) {
    throw EngineError("max: reduced dimension " + std::to_string(dim) + " of shape " +
                      shape_to_string(x.shape()) + " is empty");
  }
  const std::array<std::int64_t, 1> dims{dim};
  const Shape shape = kept_shape(x, dims);
  Tensor values = empty(shape, {.device = x.device()});
  Tensor indices = empty(shape, {.dtype = DType::kInt64, .device = x.device()});
  float* best_values = values.data<float>();
  std::int64_t* best_indices = indices.data<std::int64_t>();
  const float* input = x.data<float>();
  const std::int64_t step = x.strides()[d];
  for_each_strided<3>(shape,
                      {values.strides().data(), indices.strides().data(), x.strides().data()},
                      [&](const std::array<std::int64_t, 3>& at) {
                        float best = input[at[2]];
                        std::int64_t best_index = 0;
                        for (std::int64_t i = 1; i < extent && !std::isnan(best); ++i) {
                          const float candidate = input[at[2] + i * step];
                          if (candidate > best || std::isnan(candidate)) {
                            best = candidate;
                            best_index = i;
                          }
                        }
                        best_values[at[0]] = best;
                        best_indices[at[1]] = best_index;
                      });
  return {values, indices};
}

Tensor max_backward(const Tensor& grad, const Tensor& indices, std::int64_t dim,
                    std::span<const std::int64_t> shape) {
  require_dtype(grad, DType::kFloat32, "max_backward");
  require_dtype(indices, DType::kInt64, "max_backward");
  Tensor out = zeros(Shape(shape.begin(), shape.end()), {.device = grad.device()});
  float* result = out.data<float>();
  const float* incoming = grad.data<float>();
  const std::int64_t* positions = indices.data<std::int64_t>();
  const std::int64_t step = out.strides()[static_cast<std::size_t>(dim)];
  for_each_strided<3>(grad.shape(),
                      {out.strides().data(), grad.strides().data(), indices.strides().data()},
                      [&](const std::array<std::int64_t, 3>& at) {
                        result[at[0] + positions[at[2]] * step] += incoming[at[1]];
                      });
  return out;
}

}  // namespace tscope::engine::cpu
