// Elementwise CPU kernels: a contiguous fast path the compiler vectorises, one for a dense tensor
// and a broadcast operand (a bias), and the strided, broadcasting path for everything else (the
// reference the fast paths are tested against).

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "cpu/cpu_kernels.h"
#include "cpu/gelu_math.h"
#include "cpu/intra_op_pool.h"
#include "cpu/strided_loop.h"
#include "kernel_operands.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// The dense loops take their operands as restrict parameters, which is what lets GCC vectorise
// them; the pool's threads each run one range.
template <typename Op>
void map_dense_unary(const float* __restrict input, float* __restrict result, std::int64_t count,
                     Op op) {
  for (std::int64_t i = 0; i < count; ++i)
    result[i] = op(input[i]);
}

template <typename Op>
void map_dense_binary(const float* __restrict lhs, const float* __restrict rhs,
                      float* __restrict result, std::int64_t count, Op op) {
  for (std::int64_t i = 0; i < count; ++i)
    result[i] = op(lhs[i], rhs[i]);
}

template <typename Op>
Tensor map_unary(const Tensor& x, const char* op_name, Op op) {
  require_dtype(x, DType::kFloat32, op_name);
  Tensor out = empty(x.shape(), {.device = x.device()});
  float* result = out.data<float>();
  const float* input = x.data<float>();
  if (x.is_contiguous()) {
    parallel_for(out.numel(), kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
      map_dense_unary(input + begin, result + begin, end - begin, op);
    });
    return out;
  }
  for_each_strided<2>(
      x.shape(), {out.strides().data(), x.strides().data()},
      [&](const std::array<std::int64_t, 2>& at) { result[at[0]] = op(input[at[1]]); });
  return out;
}

// b read as a tensor of `shape` that varies only over one run of consecutive dims, where it is
// dense: a bias [C] or [1, C, 1, 1] against [N, C, H, W], or [F] against [N, F]. Seen as
// [outer, kept, inner], b's value at (o, k, i) is b[k].
struct BroadcastBlock {
  std::int64_t outer = 1;
  std::int64_t kept = 1;
  std::int64_t inner = 1;
};

std::optional<BroadcastBlock> broadcast_block(std::span<const std::int64_t> shape,
                                              std::span<const std::int64_t> strides) {
  const std::size_t rank = shape.size();
  std::size_t first = rank;
  std::size_t last = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    if (strides[d] != 0 && shape[d] != 1) {
      first = std::min(first, d);
      last = d + 1;
    }
  }
  if (first == rank) first = last = 0;  // b is one value: all of a is one inner run
  BroadcastBlock block;
  std::int64_t dense_stride = 1;
  for (std::size_t d = rank; d-- > 0;) {
    if (d >= first && d < last) {
      if (shape[d] != 1 && strides[d] != dense_stride) return std::nullopt;
      dense_stride *= shape[d];
      block.kept *= shape[d];
    } else {
      (d < first ? block.outer : block.inner) *= shape[d];
    }
  }
  return block;
}

template <typename Op>
void map_runs_with_value(const float* __restrict lhs, float value, float* __restrict result,
                         std::int64_t count, Op op) {
  for (std::int64_t i = 0; i < count; ++i)
    result[i] = op(lhs[i], value);
}

// Runs (o, k) of `inner` elements, in parallel over o * kept + k. A bias over the last dim
// (inner == 1) is a dense binary map of each of a's rows with b, which vectorises; runs of one
// element each would cost a division per element to find their value of b.
template <typename Op>
void map_broadcast_block(const float* lhs, const float* rhs, float* result,
                         const BroadcastBlock& block, Op op) {
  if (block.inner == 1) {
    const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / block.kept);
    parallel_for(block.outer, grain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t row = begin; row < end; ++row) {
        const std::int64_t at = row * block.kept;
        map_dense_binary(lhs + at, rhs, result + at, block.kept, op);
      }
    });
    return;
  }
  const std::int64_t grain =
      std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(1, block.inner));
  parallel_for(block.outer * block.kept, grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t run = begin; run < end; ++run) {
      const std::int64_t at = run * block.inner;
      map_runs_with_value(lhs + at, rhs[run % block.kept], result + at, block.inner, op);
    }
  });
}

// The general path: any strides, any broadcast; the reference of map_binary's fast paths.
template <typename Op>
Tensor map_binary_strided(const Tensor& a, const Tensor& b, Tensor out, Op op) {
  const Shape& shape = out.shape();
  float* __restrict result = out.data<float>();
  const float* __restrict lhs = a.data<float>();
  const float* __restrict rhs = b.data<float>();
  const Shape strides_a = broadcast_strides(a, shape);
  const Shape strides_b = broadcast_strides(b, shape);
  for_each_strided<3>(
      shape, {out.strides().data(), strides_a.data(), strides_b.data()},
      [&](const std::array<std::int64_t, 3>& at) { result[at[0]] = op(lhs[at[1]], rhs[at[2]]); });
  return out;
}

template <typename Op>
Tensor map_binary(const Tensor& a, const Tensor& b, const char* op_name, Op op) {
  require_dtype(a, DType::kFloat32, op_name);
  require_dtype(b, DType::kFloat32, op_name);
  const bool same_shape = a.shape() == b.shape();
  const Shape shape = same_shape ? a.shape() : broadcast_shapes(a.shape(), b.shape());
  Tensor out = empty(shape, {.device = a.device()});
  float* result = out.data<float>();
  const float* lhs = a.data<float>();
  const float* rhs = b.data<float>();
  if (same_shape && a.is_contiguous() && b.is_contiguous()) {
    parallel_for(out.numel(), kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
      map_dense_binary(lhs + begin, rhs + begin, result + begin, end - begin, op);
    });
    return out;
  }
  if (a.shape() == shape && a.is_contiguous()) {
    // b broadcast along a dense a (a bias, a scalar): one value of b per run of a.
    const std::optional<BroadcastBlock> block = broadcast_block(shape, broadcast_strides(b, shape));
    if (block) {
      map_broadcast_block(lhs, rhs, result, *block, op);
      return out;
    }
  }
  return map_binary_strided(a, b, std::move(out), op);
}

}  // namespace

Tensor neg(const Tensor& x) {
  return map_unary(x, "neg", [](float v) { return -v; });
}
Tensor exp(const Tensor& x) {
  return map_unary(x, "exp", [](float v) { return std::exp(v); });
}
Tensor log(const Tensor& x) {
  return map_unary(x, "log", [](float v) { return std::log(v); });
}
Tensor sqrt(const Tensor& x) {
  return map_unary(x, "sqrt", [](float v) { return std::sqrt(v); });
}
Tensor relu(const Tensor& x) {
  return map_unary(x, "relu", [](float v) { return v > 0.0f ? v : 0.0f; });
}
Tensor gelu(const Tensor& x) {
  // A lambda, not the function's address, so that the loop inlines it and vectorises.
  return map_unary(x, "gelu", [](float v) { return gelu_value(v); });
}
Tensor sigmoid(const Tensor& x) {
  // Split by sign so exp never overflows.
  return map_unary(x, "sigmoid", [](float v) {
    if (v >= 0.0f) return 1.0f / (1.0f + std::exp(-v));
    const float e = std::exp(v);
    return e / (1.0f + e);
  });
}
Tensor tanh(const Tensor& x) {
  return map_unary(x, "tanh", [](float v) { return std::tanh(v); });
}

Tensor add_scalar(const Tensor& x, double scalar) {
  const auto s = static_cast<float>(scalar);
  return map_unary(x, "add_scalar", [s](float v) { return v + s; });
}
Tensor mul_scalar(const Tensor& x, double scalar) {
  const auto s = static_cast<float>(scalar);
  return map_unary(x, "mul_scalar", [s](float v) { return v * s; });
}
Tensor pow_scalar(const Tensor& x, double exponent) {
  const auto e = static_cast<float>(exponent);
  return map_unary(x, "pow_scalar", [e](float v) { return std::pow(v, e); });
}

Tensor add_strided(const Tensor& a, const Tensor& b) {
  require_dtype(a, DType::kFloat32, "add");
  require_dtype(b, DType::kFloat32, "add");
  return map_binary_strided(a, b,
                            empty(broadcast_shapes(a.shape(), b.shape()), {.device = a.device()}),
                            [](float x, float y) { return x + y; });
}

Tensor add(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, "add", [](float x, float y) { return x + y; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, "sub", [](float x, float y) { return x - y; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, "mul", [](float x, float y) { return x * y; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, "div", [](float x, float y) { return x / y; });
}
Tensor relu_backward(const Tensor& grad, const Tensor& x) {
  return map_binary(grad, x, "relu_backward", [](float g, float v) { return v > 0.0f ? g : 0.0f; });
}
Tensor gelu_backward(const Tensor& grad, const Tensor& x) {
  return map_binary(grad, x, "gelu_backward", [](float g, float v) { return g * gelu_slope(v); });
}
Tensor sigmoid_backward(const Tensor& grad, const Tensor& y) {
  return map_binary(grad, y, "sigmoid_backward",
                    [](float g, float s) { return g * s * (1.0f - s); });
}
Tensor tanh_backward(const Tensor& grad, const Tensor& y) {
  return map_binary(grad, y, "tanh_backward", [](float g, float t) { return g * (1.0f - t * t); });
}

}  // namespace tscope::engine::cpu
