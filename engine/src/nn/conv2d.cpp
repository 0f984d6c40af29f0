#include "tscope/engine/nn/conv2d.h"

#include "tscope/engine/nn/init.h"

namespace tscope::engine::nn {

Conv2d::Conv2d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
               Generator& generator, Conv2dOptions options, bool with_bias)
    : options_(options),
      weight_(register_parameter(
          "weight", kaiming_uniform({out_channels, in_channels, kernel_size, kernel_size},
                                    in_channels * kernel_size * kernel_size, kDefaultNegativeSlope,
                                    generator))) {
  if (with_bias) {
    bias_ = register_parameter(
        "bias", fan_in_uniform({out_channels}, in_channels * kernel_size * kernel_size, generator));
  }
}

Tensor Conv2d::forward(const Tensor& input) {
  return conv2d(input, weight_, bias_, options_);
}

}  // namespace tscope::engine::nn
