#pragma once
// A direct convolution for stride-1 layers of few output channels, on CPUs with AVX-512: each
// output row is computed in tiles of up to 24 positions whose accumulators (16 output channels
// per register) stay in registers across the whole C x KH x KW reduction, each input value
// broadcast once per tile and kernel offset. It reads the image itself (padded into a scratch
// plane), so it pays neither the unfolded copy nor BLAS's packing of it, which at the example
// CNN's channel counts cost as much as the multiply (docs/PERFORMANCE.md). The unfold + GEMM path
// of cpu/conv2d_image_gemm.cpp is its reference and its fallback.

#include <cstdint>
#include <vector>

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine::cpu {

class DirectConvolution {
 public:
  // The most output channels the kernel keeps in registers (four registers of 16 per position).
  static constexpr std::int64_t kMaxOutChannels = 64;

  // Whether this CPU runs the kernel: it has AVX-512F and TSCOPE_MAX_CPU_ISA allows it.
  static bool available();
  // Whether this CPU and `geometry` suit the kernel: AVX-512F, stride 1, 8 to kMaxOutChannels
  // output channels (fewer would leave most of a register's lanes idle), and a reduction
  // (C x KH x KW) deeper than a single input channel's 5 x 5 taps, where the GEMM is faster
  // (the example CNN's first layer: forward 0.54 against 0.62 ms, weight gradient 0.67 against
  // 0.92 ms a step).
  static bool suits(const Conv2dGeometry& geometry, std::int64_t out_channels);
  // The same for input_gradient: also a square kernel wider than the padding, and an output
  // gradient not much narrower than the input, as the kernel multiplies its rows padded to the
  // input's width plus the kernel's.
  static bool suits_input_gradient(const Conv2dGeometry& geometry, std::int64_t out_channels);

  // The convolution of `geometry` with the filters [OC, C, KH, KW] (row-major).
  static DirectConvolution forward(const Conv2dGeometry& geometry, const float* weights,
                                   std::int64_t out_channels);
  // The input gradient of that convolution as a convolution of its own: the output gradient
  // [OC, OH, OW] padded by KH - 1 - padding (and KW - 1 - padding), filtered by the weights
  // flipped in both spatial dims with their channel dims swapped. Needs padding below the kernel.
  static DirectConvolution input_gradient(const Conv2dGeometry& geometry, const float* weights,
                                          std::int64_t out_channels);

  // Floats of scratch one image needs (its padded planes and the kernel's slack).
  std::int64_t scratch_floats() const;
  // out [OC, OH, OW] of one image [C, H, W]; `scratch` holds scratch_floats().
  void run(const float* image, float* scratch, float* out) const;

 private:
  DirectConvolution(const Conv2dGeometry& geometry, std::int64_t out_channels);
  // Floats of scratch the padded image takes, the kernel's reach past it included.
  std::int64_t padded_floats() const;

  Conv2dGeometry geometry_;
  std::int64_t out_channels_;
  std::int64_t blocks_;  // registers of 16 output channels
  std::int64_t tile_;    // output positions per tile
  std::int64_t padded_height_;
  std::int64_t padded_width_;
  // [C*KH*KW][blocks_ * 16]: the filters as the kernel reads them, zero beyond OC.
  std::vector<float> filters_;
};

// The weight gradient of a stride-1 convolution, summed image by image without unfolding: for
// each input channel and kernel row, the KW x OC sums stay in registers while the image's output
// positions stream by, each position's gradient (16 output channels per register) multiplied by
// KW broadcast input values. Sums are kept as [C*KH*KW][OC rounded up to 16].
class DirectWeightGradient {
 public:
  // AVX-512F, stride 1, output channels and reduction as DirectConvolution::suits, and a kernel
  // row that fits the registers beside its output channels (KW x registers of OC at most 24).
  static bool suits(const Conv2dGeometry& geometry, std::int64_t out_channels);

  DirectWeightGradient(const Conv2dGeometry& geometry, std::int64_t out_channels);

  // Floats of scratch one image needs, and of one set of sums.
  std::int64_t scratch_floats() const;
  std::int64_t sum_floats() const;
  // Adds the products of one image [C, H, W] and its output gradient [OC, OH, OW] to `sums`.
  void accumulate(const float* image, const float* grad, float* scratch, float* sums) const;
  // weight_grad [OC, C, KH, KW] = the total of `count` sets of sums laid one after the other.
  void total(const float* sums, std::int64_t count, float* weight_grad) const;

 private:
  Conv2dGeometry geometry_;
  std::int64_t out_channels_;
  std::int64_t blocks_;
  std::int64_t padded_height_;
  std::int64_t padded_width_;
};

}  // namespace tscope::engine::cpu
