#include "tscope/engine/nn/layer_norm.h"

#include <utility>

#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

LayerNorm::LayerNorm(Shape normalized_shape, double eps)
    : normalized_shape_(std::move(normalized_shape)),
      eps_(eps),
      weight_(register_parameter("weight", ones(normalized_shape_))),
      bias_(register_parameter("bias", zeros(normalized_shape_))) {}

Tensor LayerNorm::forward(const Tensor& input) {
  return layer_norm(input, normalized_shape_, weight_, bias_, eps_);
}

}  // namespace tscope::engine::nn
