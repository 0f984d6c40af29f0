#pragma once
// Max pooling over [N, C, H, W] inputs with a square window; the stride defaults to the window.

#include <cstdint>
#include <optional>

#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(std::int64_t kernel_size, std::optional<std::int64_t> stride = std::nullopt)
      : kernel_size_(kernel_size), stride_(stride) {}

  Tensor forward(const Tensor& input) override;

 private:
  std::int64_t kernel_size_;
  std::optional<std::int64_t> stride_;
};

}  // namespace tscope::engine::nn
