#pragma once
// Dropout: in training mode zeroes each element with probability p and scales the rest by
// 1 / (1 - p); in eval mode the identity. Its mask stream is seeded, so runs repeat exactly.

#include <cstdint>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class Dropout : public Module {
 public:
  // Throws std::invalid_argument unless 0 <= p < 1.
  Dropout(double p, std::uint64_t seed);

  Tensor forward(const Tensor& input) override;

  double p() const { return p_; }

 private:
  double p_;
  Generator generator_;
};

}  // namespace tscope::engine::nn
