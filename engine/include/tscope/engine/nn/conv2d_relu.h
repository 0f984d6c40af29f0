#pragma once
// A convolution layer with its bias and ReLU fused in: relu(conv2d(x) + b) as the one op
// conv2d_bias_relu. The fused form of Conv2d followed by ReLU, with the same parameters from the
// same seed.

#include <cstdint>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/conv2d.h"

namespace tscope::engine::nn {

class Conv2dRelu : public Conv2d {
 public:
  Conv2dRelu(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
             Generator& generator, Conv2dOptions options = {});

  Tensor forward(const Tensor& input) override;
};

}  // namespace tscope::engine::nn
