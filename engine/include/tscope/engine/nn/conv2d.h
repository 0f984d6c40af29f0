#pragma once
// A 2-D convolution layer over [N, C, H, W] inputs with square kernels.

#include <cstdint>
#include <optional>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/module.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

class Conv2d : public Module {
 public:
  Conv2d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
         Generator& generator, Conv2dOptions options = {}, bool with_bias = true);

  Tensor forward(const Tensor& input) override;

  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }
  const Conv2dOptions& options() const { return options_; }

 private:
  Conv2dOptions options_;
  Tensor weight_;
  std::optional<Tensor> bias_;
};

}  // namespace tscope::engine::nn
