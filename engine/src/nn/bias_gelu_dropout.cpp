#include "tscope/engine/nn/bias_gelu_dropout.h"

#include <stdexcept>
#include <string>

#include "tscope/engine/nn/init.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

BiasGeluDropout::BiasGeluDropout(std::int64_t features, std::int64_t fan_in, Generator& generator,
                                 BiasGeluDropoutOptions options)
    : bias_(register_parameter("bias", fan_in_uniform({features}, fan_in, generator))),
      options_(options),
      mask_generator_(options.seed) {
  if (!(options.p >= 0.0 && options.p < 1.0)) {
    throw std::invalid_argument("nn::BiasGeluDropout: p must be in [0, 1), got " +
                                std::to_string(options.p));
  }
}

Tensor BiasGeluDropout::forward(const Tensor& input) {
  if (options_.fused) {
    return bias_gelu_dropout(input, bias_, options_.p, is_training(), mask_generator_);
  }
  return dropout(gelu(add(input, bias_)), options_.p, is_training(), mask_generator_);
}

}  // namespace tscope::engine::nn
