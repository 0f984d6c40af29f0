#pragma once
// One dropout-mask element per call: `scale` with probability `keep_probability`, else 0. Shared by
// the mask kernel and the fused dropout kernels so that one seed gives one mask in both.

#include <random>

#include "tscope/engine/generator.h"

namespace tscope::engine::cpu {

class MaskDraw {
 public:
  MaskDraw(double keep_probability, double scale, Generator& generator)
      : keep_probability_(keep_probability), kept_(static_cast<float>(scale)), generator_(generator) {}

  float operator()() { return distribution_(generator_.engine()) < keep_probability_ ? kept_ : 0.0f; }

 private:
  double keep_probability_;
  float kept_;
  Generator& generator_;
  std::uniform_real_distribution<double> distribution_{0.0, 1.0};
};

}  // namespace tscope::engine::cpu
