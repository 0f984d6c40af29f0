#pragma once
// Parameter-free activation layers, so that they can be stacked in a Sequential.

#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class ReLU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};

// GELU in its tanh approximation (Hendrycks and Gimpel 2016), as GPT-2 uses it.
class GELU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
};

}  // namespace tscope::engine::nn
