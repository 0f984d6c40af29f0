#include "tscope/engine/nn/sequential.h"

namespace tscope::engine::nn {

Tensor Sequential::forward(const Tensor& input) {
  Tensor output = input;
  for (const auto& [name, module] : children()) {
    output = module->forward(output);
  }
  return output;
}

}  // namespace tscope::engine::nn
