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

// Elements 0 .. count - 1 of the mask MaskDraw draws from `stream`, into dense memory. The blocks
// are independent, so this loop vectorises where MaskDraw's one draw a call cannot: the mask
// costs a fifth of the time.
inline void draw_mask(double keep_probability, double scale, PhiloxStream stream,
                      float* __restrict out, std::int64_t count) {
  const auto keep = static_cast<float>(keep_probability);
  const auto kept = static_cast<float>(scale);
  const std::int64_t blocks = count / 4;
  for (std::int64_t block = 0; block < blocks; ++block) {
    const PhiloxBlock draws = philox_block(stream, static_cast<std::uint64_t>(block));
    for (int lane = 0; lane < 4; ++lane)
      out[4 * block + lane] = philox_mask(draws.word[lane], keep, kept);
  }
  if (blocks * 4 == count) return;
  const PhiloxBlock last = philox_block(stream, static_cast<std::uint64_t>(blocks));
  for (std::int64_t i = blocks * 4; i < count; ++i)
    out[i] = philox_mask(last.word[i - blocks * 4], keep, kept);
}

}  // namespace tscope::engine::cpu
