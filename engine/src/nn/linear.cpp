#include "tscope/engine/nn/linear.h"

#include "tscope/engine/nn/init.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, Generator& generator,
               bool with_bias)
    : weight_(register_parameter("weight", kaiming_uniform({out_features, in_features}, in_features,
                                                           kDefaultNegativeSlope, generator))) {
  if (with_bias) {
    bias_ = register_parameter("bias", fan_in_uniform({out_features}, in_features, generator));
  }
}

Tensor Linear::forward(const Tensor& input) {
  return linear(input, weight_, bias_);
}

}  // namespace tscope::engine::nn
