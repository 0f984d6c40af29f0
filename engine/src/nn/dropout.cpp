#include "tscope/engine/nn/dropout.h"

#include <stdexcept>
#include <string>

#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

Dropout::Dropout(double p, std::uint64_t seed) : p_(p), generator_(seed) {
  if (!(p >= 0.0 && p < 1.0)) {
    throw std::invalid_argument("nn::Dropout: p must be in [0, 1), got " + std::to_string(p));
  }
}

Tensor Dropout::forward(const Tensor& input) {
  return dropout(input, p_, is_training(), generator_);
}

}  // namespace tscope::engine::nn
