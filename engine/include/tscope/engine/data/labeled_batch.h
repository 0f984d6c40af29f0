#pragma once
// A collated batch for supervised training: inputs with a leading batch dimension and one
// int64 class index per sample.

#include "tscope/engine/tensor.h"

namespace tscope::engine {

struct LabeledBatch {
  Tensor inputs;   // float32 [N, ...]
  Tensor targets;  // int64 [N]
};

}  // namespace tscope::engine
