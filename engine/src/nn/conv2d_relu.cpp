#include "tscope/engine/nn/conv2d_relu.h"

#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

Conv2dRelu::Conv2dRelu(std::int64_t in_channels, std::int64_t out_channels,
                       std::int64_t kernel_size, Generator& generator, Conv2dOptions options)
    : Conv2d(in_channels, out_channels, kernel_size, generator, options, /*with_bias=*/true) {}

Tensor Conv2dRelu::forward(const Tensor& input) {
  return conv2d_bias_relu(input, weight(), *bias(), options());
}

}  // namespace tscope::engine::nn
