// Dropout and layer normalisation, composed from differentiable ops so their gradients follow.

#include "tscope/engine/dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {

Tensor dropout(const Tensor& x, double p, bool training, Generator& generator) {
  if (p < 0.0 || p > 1.0) {
    throw EngineError("dropout: probability " + std::to_string(p) + " is outside [0, 1]");
  }
  if (!training || p == 0.0) return x;
  if (p == 1.0) return mul(x, 0.0);
  Tensor mask = empty(x.shape(), {.device = x.device()});
  run_op<RandomFillKernel>(OpKind::kBernoulliMask, mask, 1.0 - p, 1.0 / (1.0 - p), generator);
  return mul(x, mask);
}

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  const auto rank = static_cast<std::size_t>(x.dim());
  const std::size_t count = normalized_shape.size();
  if (count == 0 || count > rank ||
      !std::equal(normalized_shape.begin(), normalized_shape.end(),
                  x.shape().end() - static_cast<std::ptrdiff_t>(count))) {
    throw EngineError("layer_norm: normalized shape " + shape_to_string(normalized_shape) +
                      " is not the trailing shape of " + shape_to_string(x.shape()));
  }
  Shape dims;
  for (std::size_t i = rank - count; i < rank; ++i)
    dims.push_back(static_cast<std::int64_t>(i));
  const Tensor centred = sub(x, mean(x, dims, true));
  const Tensor variance = mean(mul(centred, centred), dims, true);
  Tensor out = div(centred, sqrt(add(variance, eps)));
  if (weight) out = mul(out, *weight);
  if (bias) out = add(out, *bias);
  return out;
}

}  // namespace tscope::engine
