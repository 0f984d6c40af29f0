#pragma once
// Layer normalisation over the trailing dimensions given by normalized_shape, with a learned
// per-element scale (initialised to 1) and shift (initialised to 0).

#include "tscope/engine/nn/module.h"
#include "tscope/engine/shape.h"

namespace tscope::engine::nn {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5);

  Tensor forward(const Tensor& input) override;

  const Tensor& weight() const { return weight_; }
  const Tensor& bias() const { return bias_; }

 private:
  Shape normalized_shape_;
  double eps_;
  Tensor weight_;
  Tensor bias_;
};

}  // namespace tscope::engine::nn
