#pragma once
// A fully connected layer, y = x W^T + b, with W of shape [out_features, in_features].

#include <cstdint>
#include <optional>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class Linear : public Module {
 public:
  Linear(std::int64_t in_features, std::int64_t out_features, Generator& generator,
         bool with_bias = true);

  Tensor forward(const Tensor& input) override;

  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }

 private:
  Tensor weight_;
  std::optional<Tensor> bias_;
};

}  // namespace tscope::engine::nn
