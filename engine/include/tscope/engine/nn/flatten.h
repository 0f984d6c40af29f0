#pragma once
// Flattens dimensions start_dim..end_dim into one; by default everything but the batch dimension,
// which turns [N, C, H, W] feature maps into [N, C*H*W] rows for a Linear layer.

#include <cstdint>

#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class Flatten : public Module {
 public:
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1)
      : start_dim_(start_dim), end_dim_(end_dim) {}

  Tensor forward(const Tensor& input) override { return input.flatten(start_dim_, end_dim_); }

 private:
  std::int64_t start_dim_;
  std::int64_t end_dim_;
};

}  // namespace tscope::engine::nn
