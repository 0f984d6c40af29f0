#include "tscope/engine/nn/init.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "tscope/engine/factories.h"

namespace tscope::engine::nn {
namespace {

void check_fan_in(std::int64_t fan_in) {
  if (fan_in <= 0) {
    throw std::invalid_argument("nn init: fan_in must be positive, got " + std::to_string(fan_in));
  }
}

}  // namespace

Tensor kaiming_uniform(const Shape& shape, std::int64_t fan_in, double negative_slope,
                       Generator& generator) {
  check_fan_in(fan_in);
  const double gain = std::sqrt(2.0 / (1.0 + negative_slope * negative_slope));
  const double bound = gain * std::sqrt(3.0 / static_cast<double>(fan_in));
  return uniform(shape, -bound, bound, generator);
}

Tensor fan_in_uniform(const Shape& shape, std::int64_t fan_in, Generator& generator) {
  check_fan_in(fan_in);
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return uniform(shape, -bound, bound, generator);
}

}  // namespace tscope::engine::nn
