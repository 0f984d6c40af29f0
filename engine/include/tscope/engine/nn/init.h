#pragma once
// PyTorch's default initialisation of linear and convolution layers, so models built here
// train like their PyTorch counterparts with the same hyperparameters.

#include <cstdint>

#include "tscope/engine/generator.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine::nn {

// U(-bound, bound) with bound = gain * sqrt(3 / fan_in), gain = sqrt(2 / (1 + a^2)) for a leaky
// ReLU of negative slope a (He et al. 2015). PyTorch's layers use a = sqrt(5), which gives
// bound = 1 / sqrt(fan_in).
Tensor kaiming_uniform(const Shape& shape, std::int64_t fan_in, double negative_slope,
                       Generator& generator);

// The bias initialisation of PyTorch's Linear and Conv2d: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
Tensor fan_in_uniform(const Shape& shape, std::int64_t fan_in, Generator& generator);

// PyTorch's default negative slope for weight initialisation in Linear and Conv2d.
inline constexpr double kDefaultNegativeSlope = 2.23606797749979;  // sqrt(5)

}  // namespace tscope::engine::nn
