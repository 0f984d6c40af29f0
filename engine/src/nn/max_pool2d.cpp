#include "tscope/engine/nn/max_pool2d.h"

#include "tscope/engine/ops.h"

namespace tscope::engine::nn {

Tensor MaxPool2d::forward(const Tensor& input) {
  return max_pool2d(input, kernel_size_, stride_);
}

}  // namespace tscope::engine::nn
