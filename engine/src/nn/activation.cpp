#include "tscope/engine/nn/activation.h"

#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

Tensor ReLU::forward(const Tensor& input) {
  return relu(input);
}

Tensor GELU::forward(const Tensor& input) {
  return gelu(input);
}

}  // namespace tscope::engine::nn
