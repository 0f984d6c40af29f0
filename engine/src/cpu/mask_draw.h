#pragma once
// One dropout-mask element per call, drawn in order from a reserved Philox stream: `scale` with
// probability `keep_probability`, else 0. Shared by the mask kernel and the fused dropout kernel,
// so that one seed gives one mask in both, and the CUDA kernels' mask too.

#include <cstdint>

#include "philox.h"
#include "tscope/engine/generator.h"

namespace tscope::engine::cpu {

class MaskDraw {
 public:
  MaskDraw(double keep_probability, double scale, PhiloxStream stream)
      : keep_probability_(static_cast<float>(keep_probability)),
        kept_(static_cast<float>(scale)),
        sequence_(stream) {}

  float operator()() { return philox_mask(sequence_.next(), keep_probability_, kept_); }

 private:
  float keep_probability_;
  float kept_;
  PhiloxSequence sequence_;
};

}  // namespace tscope::engine::cpu
