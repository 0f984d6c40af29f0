// Dropout, composed from differentiable ops so its gradient follows, and layer normalisation, one
// fused op forward and one backward.

#include <algorithm>
#include <span>
#include <string>

#include "autograd/graph.h"
#include "dispatch.h"
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

namespace {

// A weight or bias of the normalized shape as the kernels take it: contiguous [cols], or undefined.
Tensor affine_row(const std::optional<Tensor>& affine, const Shape& normalized_shape,
                  std::int64_t cols, const char* role) {
  if (!affine) return Tensor();
  if (affine->shape() != normalized_shape) {
    throw EngineError("layer_norm: " + std::string(role) + " of shape " +
                      shape_to_string(affine->shape()) + " is not the normalized shape " +
                      shape_to_string(normalized_shape));
  }
  return affine->detach().contiguous().view({cols});
}

}  // namespace

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
  const std::int64_t cols = shape_numel(normalized_shape);
  const std::int64_t rows = shape_numel(std::span(x.shape()).first(rank - count));
  const Tensor input = x.detach().contiguous().view({rows, cols});
  const Tensor scale = affine_row(weight, normalized_shape, cols, "weight");
  const Tensor shift = affine_row(bias, normalized_shape, cols, "bias");
  auto [out, mean, rstd] = run_op<LayerNormKernel>(OpKind::kLayerNorm, input, scale, shift, eps);
  Tensor result = out.view(x.shape());
  record_if_needed(
      result, "LayerNormBackward", {x, weight.value_or(Tensor()), bias.value_or(Tensor())},
      [input, scale, mean = mean, rstd = rstd, x_shape = x.shape(), normalized_shape](
          const Tensor& grad, const GradNeeds& needs) {
        auto [grad_input, grad_weight, grad_bias] = run_op<LayerNormBackwardKernel>(
            OpKind::kLayerNormBackward, grad.contiguous().view(input.shape()), input, scale, mean,
            rstd, LayerNormGradNeeds{.input = needs[0], .weight = needs[1], .bias = needs[2]});
        return std::vector<Tensor>{needs[0] ? grad_input.view(x_shape) : Tensor(),
                                   needs[1] ? grad_weight.view(normalized_shape) : Tensor(),
                                   needs[2] ? grad_bias.view(normalized_shape) : Tensor()};
      });
  return result;
}

}  // namespace tscope::engine
