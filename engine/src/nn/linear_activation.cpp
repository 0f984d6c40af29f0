#include "tscope/engine/nn/linear_activation.h"

#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

LinearActivation::LinearActivation(std::int64_t in_features, std::int64_t out_features,
                                   FusedActivation activation, Generator& generator)
    : Linear(in_features, out_features, generator, /*with_bias=*/true), activation_(activation) {}

Tensor LinearActivation::forward(const Tensor& input) {
  return linear_activation(input, weight(), *bias(), activation_);
}

}  // namespace tscope::engine::nn
