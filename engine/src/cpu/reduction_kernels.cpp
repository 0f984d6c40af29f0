// CPU reductions: sum over any set of dims (accumulated in double; dense tensors whose kept dims
// are consecutive take a fast path, the strided loop is its reference), and max along one dim with
// the position of each maximum, plus its gradient routed back to those positions.

#include <array>
#include <cmath>
#include <limits>
#include <optional>
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

// A dense tensor whose kept dims are one run of consecutive dims, seen as [outer, kept, inner]
// with outer and inner reduced: a bias gradient ([N, C, H, W] summed over N, H and W, or [N, F]
// over N), or a sum of trailing dims (outer 1).
struct KeptBlock {
  std::int64_t outer = 1;
  std::int64_t kept = 1;
  std::int64_t inner = 1;
};

// Sorted, unique `dims` (as the op passes them); nullopt unless the kept dims are consecutive.
std::optional<KeptBlock> kept_block(const Tensor& x, std::span<const std::int64_t> dims) {
  const auto rank = static_cast<std::size_t>(x.dim());
  std::size_t leading = 0;  // reduced dims 0, 1, ... before the kept run
  while (leading < dims.size() && dims[leading] == static_cast<std::int64_t>(leading))
    ++leading;
  const std::size_t trailing = dims.size() - leading;  // the rest must end the shape
  for (std::size_t i = 0; i < trailing; ++i) {
    if (dims[leading + i] != static_cast<std::int64_t>(rank - trailing + i)) return std::nullopt;
  }
  KeptBlock block;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t extent = x.shape()[d];
    (d < leading ? block.outer : d < rank - trailing ? block.kept : block.inner) *= extent;
  }
  return block;
}

// Sum of a contiguous run in double, in independent lanes so that the additions pipeline (and
// vectorise) instead of waiting on one running total.
double run_total(const float* values, std::int64_t count) {
  constexpr std::int64_t kLanes = 8;
  std::array<double, kLanes> lanes{};
  std::int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (std::int64_t lane = 0; lane < kLanes; ++lane)
      lanes[static_cast<std::size_t>(lane)] += values[i + lane];
  }
  double total = 0.0;
  for (; i < count; ++i)
    total += values[i];
  for (const double lane : lanes)
    total += lane;
  return total;
}

// out[k] = the sum over outer and inner of x[outer, k, inner].
void sum_kept_block(const float* input, float* result, const KeptBlock& block) {
  std::vector<double> totals(static_cast<std::size_t>(block.kept), 0.0);
  for (std::int64_t o = 0; o < block.outer; ++o) {
    const float* slab = input + o * block.kept * block.inner;
    if (block.inner == 1) {
      for (std::int64_t k = 0; k < block.kept; ++k)
        totals[static_cast<std::size_t>(k)] += slab[k];
      continue;
    }
    for (std::int64_t k = 0; k < block.kept; ++k)
      totals[static_cast<std::size_t>(k)] += run_total(slab + k * block.inner, block.inner);
  }
  for (std::int64_t k = 0; k < block.kept; ++k)
    result[k] = static_cast<float>(totals[static_cast<std::size_t>(k)]);
}

}  // namespace

// The general path: every element added to its output's total through the strided loop. The
// reference of the dense fast path in sum().
Tensor sum_strided(const Tensor& x, std::span<const std::int64_t> dims) {
  require_dtype(x, DType::kFloat32, "sum");
  const Shape shape = kept_shape(x, dims);
  Tensor out = empty(shape, {.device = x.device()});
  float* result = out.data<float>();
  const float* input = x.data<float>();
  const std::int64_t outputs = out.numel();
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

Tensor sum(const Tensor& x, std::span<const std::int64_t> dims) {
  require_dtype(x, DType::kFloat32, "sum");
  const std::optional<KeptBlock> block = x.is_contiguous() ? kept_block(x, dims) : std::nullopt;
  if (!block) return sum_strided(x, dims);
  Tensor out = empty(kept_shape(x, dims), {.device = x.device()});
  if (out.numel() == 0) return out;
  sum_kept_block(x.data<float>(), out.data<float>(), *block);
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
