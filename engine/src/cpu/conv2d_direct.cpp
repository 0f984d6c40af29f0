// The direct convolution's AVX-512 tile kernel, one instance per (registers of output channels,
// tile width) pair, and the plumbing around it: filters laid out as the kernel reads them, the
// image padded into scratch, the tiles' values moved into the output's [OC, OH, OW] rows.

#include "cpu/conv2d_direct.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "cpu/cpu_isa.h"

namespace tscope::engine::cpu {
namespace {

constexpr std::int64_t kLanes = 16;
// Accumulator registers a tile may hold of AVX-512's 32; the others keep the filters of one
// kernel offset and the broadcast input value.
constexpr int kAccumulators = 24;

constexpr int max_tile(int blocks) {
  return kAccumulators / blocks;
}

// What a tile reads: the padded input under output position (oh, ow0) at kernel offset (0, 0) of
// channel 0, and the strides and extents to walk the reduction. Kernel rows outside
// [first_kernel_row, last_kernel_row) read only the padding's zeros and are skipped.
struct TileInput {
  const float* origin;
  std::int64_t row_stride;
  std::int64_t plane_stride;
  std::int64_t channels;
  std::int64_t kernel_height;
  std::int64_t kernel_width;
  std::int64_t first_kernel_row;
  std::int64_t last_kernel_row;
};

// tile[t][b * 16 + lane] = sum over (c, ki, kj) of filters[(c * KH + ki) * KW + kj][b * 16 + lane]
// times the input at (c, ki, t + kj): kBlocks x kTile accumulators that stay in registers.
template <int kBlocks, int kTile>
[[gnu::target("avx512f")]] void convolve_tile(const TileInput& in, const float* filters,
                                              float* tile) {
  __m512 sums[kBlocks][kTile];
  for (auto& block : sums) {
    for (__m512& sum : block)
      sum = _mm512_setzero_ps();
  }
  for (std::int64_t c = 0; c < in.channels; ++c) {
    for (std::int64_t ki = in.first_kernel_row; ki < in.last_kernel_row; ++ki) {
      const float* row = in.origin + c * in.plane_stride + ki * in.row_stride;
      const float* filter_row =
          filters + (c * in.kernel_height + ki) * in.kernel_width * kBlocks * kLanes;
      for (std::int64_t kj = 0; kj < in.kernel_width; ++kj, filter_row += kBlocks * kLanes) {
        __m512 filter[kBlocks];
        for (int b = 0; b < kBlocks; ++b)
          filter[b] = _mm512_loadu_ps(filter_row + b * kLanes);
        for (int t = 0; t < kTile; ++t) {
          const __m512 value = _mm512_set1_ps(row[t + kj]);
          for (int b = 0; b < kBlocks; ++b)
            sums[b][t] = _mm512_fmadd_ps(filter[b], value, sums[b][t]);
        }
      }
    }
  }
  for (int t = 0; t < kTile; ++t) {
    for (int b = 0; b < kBlocks; ++b)
      _mm512_storeu_ps(tile + (t * kBlocks + b) * kLanes, sums[b][t]);
  }
}

// A kernel template instantiated for 1 to 4 registers of output channels and every width from 1
// to max_tile(registers) (the tile's width, or the kernel's), looked up at run time. `Family`
// names the instances: Family::instance<kBlocks, kWidth>, of type Family::Pointer.
template <typename Family>
class KernelTable {
 public:
  using Pointer = typename Family::Pointer;

  static Pointer find(std::int64_t blocks, std::int64_t width) {
    const auto index = static_cast<std::size_t>(width - 1);
    switch (blocks) {
      case 1:
        return kInstances<1>[index];
      case 2:
        return kInstances<2>[index];
      case 3:
        return kInstances<3>[index];
      default:
        return kInstances<4>[index];
    }
  }

 private:
  template <int kBlocks, int... kWidthsLessOne>
  static constexpr std::array<Pointer, sizeof...(kWidthsLessOne)> instances(
      std::integer_sequence<int, kWidthsLessOne...>) {
    return {Family::template instance<kBlocks, kWidthsLessOne + 1>...};
  }

  // Indexed by width - 1.
  template <int kBlocks>
  static constexpr auto kInstances =
      instances<kBlocks>(std::make_integer_sequence<int, max_tile(kBlocks)>());
};

struct TileKernels {
  using Pointer = void (*)(const TileInput&, const float*, float*);
  template <int kBlocks, int kTile>
  static constexpr Pointer instance = &convolve_tile<kBlocks, kTile>;
};

// The convolution whose output is the input gradient of `geometry`'s (stride 1, square kernel):
// the output gradient padded by KH - 1 - padding, producing an image of the input's size.
Conv2dGeometry transposed(const Conv2dGeometry& geometry, std::int64_t out_channels) {
  return {.batch = geometry.batch,
          .channels = out_channels,
          .height = geometry.out_height,
          .width = geometry.out_width,
          .kernel_height = geometry.kernel_height,
          .kernel_width = geometry.kernel_width,
          .stride = 1,
          .padding = geometry.kernel_height - 1 - geometry.padding,
          .out_height = geometry.height,
          .out_width = geometry.width};
}

// sums[kj][b * 16 + lane] += sum over output positions (oh, ow) of grad[(oh, ow)][b * 16 + lane]
// times input[oh * row_stride + ow + kj]: kBlocks x kKernelWidth sums kept in registers while
// the positions stream by. `grad` is one image's gradient transposed to [OH*OW][kBlocks * 16].
template <int kBlocks, int kKernelWidth>
[[gnu::target("avx512f")]] void accumulate_kernel_row(const float* grad, const float* input,
                                                      std::int64_t row_stride,
                                                      std::int64_t out_height,
                                                      std::int64_t out_width, float* sums) {
  __m512 acc[kBlocks][kKernelWidth];
  for (int kj = 0; kj < kKernelWidth; ++kj) {
    for (int b = 0; b < kBlocks; ++b)
      acc[b][kj] = _mm512_loadu_ps(sums + (kj * kBlocks + b) * kLanes);
  }
  const float* position_grad = grad;
  for (std::int64_t oh = 0; oh < out_height; ++oh) {
    const float* row = input + oh * row_stride;
    for (std::int64_t ow = 0; ow < out_width; ++ow, position_grad += kBlocks * kLanes) {
      __m512 g[kBlocks];
      for (int b = 0; b < kBlocks; ++b)
        g[b] = _mm512_loadu_ps(position_grad + b * kLanes);
      for (int kj = 0; kj < kKernelWidth; ++kj) {
        const __m512 value = _mm512_set1_ps(row[ow + kj]);
        for (int b = 0; b < kBlocks; ++b)
          acc[b][kj] = _mm512_fmadd_ps(g[b], value, acc[b][kj]);
      }
    }
  }
  for (int kj = 0; kj < kKernelWidth; ++kj) {
    for (int b = 0; b < kBlocks; ++b)
      _mm512_storeu_ps(sums + (kj * kBlocks + b) * kLanes, acc[b][kj]);
  }
}

struct RowKernels {
  using Pointer = void (*)(const float*, const float*, std::int64_t, std::int64_t, std::int64_t,
                           float*);
  template <int kBlocks, int kKernelWidth>
  static constexpr Pointer instance = &accumulate_kernel_row<kBlocks, kKernelWidth>;
};

// Copies `image` [C, H, W] into the middle of `padded` [C, H + 2p, W + 2p] (p = padding) and zeroes
// the border and the `slack` floats past the last plane.
void pad_image(const float* image, const Conv2dGeometry& g, std::int64_t slack, float* padded) {
  const std::int64_t padded_width = g.width + 2 * g.padding;
  const std::int64_t plane = (g.height + 2 * g.padding) * padded_width;
  std::fill(padded, padded + g.channels * plane + slack, 0.0f);
  for (std::int64_t c = 0; c < g.channels; ++c) {
    for (std::int64_t h = 0; h < g.height; ++h) {
      std::memcpy(padded + c * plane + (h + g.padding) * padded_width + g.padding,
                  image + (c * g.height + h) * g.width,
                  static_cast<std::size_t>(g.width) * sizeof(float));
    }
  }
}

}  // namespace

DirectConvolution::DirectConvolution(const Conv2dGeometry& geometry, std::int64_t out_channels)
    : geometry_(geometry),
      out_channels_(out_channels),
      blocks_((out_channels + kLanes - 1) / kLanes),
      padded_height_(geometry.height + 2 * geometry.padding),
      padded_width_(geometry.width + 2 * geometry.padding) {
  // Tiles of equal width as far as the row allows: 28 columns at most 24 wide are two of 14.
  const std::int64_t widest = max_tile(static_cast<int>(blocks_));
  const std::int64_t tiles = (geometry.out_width + widest - 1) / widest;
  tile_ = (geometry.out_width + tiles - 1) / tiles;
  filters_.assign(static_cast<std::size_t>(geometry.channels * geometry.kernel_height *
                                           geometry.kernel_width * blocks_ * kLanes),
                  0.0f);
}

bool DirectConvolution::available() {
  return avx512_allowed();
}

bool DirectConvolution::suits(const Conv2dGeometry& geometry, std::int64_t out_channels) {
  const std::int64_t reduction = geometry.channels * geometry.kernel_height * geometry.kernel_width;
  return available() && geometry.stride == 1 && out_channels >= 8 &&
         out_channels <= kMaxOutChannels && geometry.out_width >= 1 && reduction > 25;
}

bool DirectConvolution::suits_input_gradient(const Conv2dGeometry& geometry,
                                             std::int64_t out_channels) {
  // The kernel skips the padding's rows but not its columns: W x KW products per output row and
  // kernel row against the GEMM's OW x KW, which the fold's cost makes worth up to half as many
  // again (measured: 14 against 10 columns in the example CNN's second layer).
  const bool little_waste = 2 * geometry.width <= 3 * geometry.out_width;
  return geometry.kernel_height == geometry.kernel_width &&
         geometry.padding < geometry.kernel_height && out_channels >= 1 && little_waste &&
         suits(transposed(geometry, out_channels), geometry.channels);
}

DirectConvolution DirectConvolution::forward(const Conv2dGeometry& geometry, const float* weights,
                                             std::int64_t out_channels) {
  DirectConvolution convolution(geometry, out_channels);
  const std::int64_t reduction = geometry.channels * geometry.kernel_height * geometry.kernel_width;
  const std::int64_t width = convolution.blocks_ * kLanes;
  for (std::int64_t oc = 0; oc < out_channels; ++oc) {
    for (std::int64_t r = 0; r < reduction; ++r)
      convolution.filters_[static_cast<std::size_t>(r * width + oc)] = weights[oc * reduction + r];
  }
  return convolution;
}

DirectConvolution DirectConvolution::input_gradient(const Conv2dGeometry& geometry,
                                                    const float* weights,
                                                    std::int64_t out_channels) {
  DirectConvolution convolution(transposed(geometry, out_channels), geometry.channels);
  const std::int64_t kh = geometry.kernel_height;
  const std::int64_t kw = geometry.kernel_width;
  const std::int64_t width = convolution.blocks_ * kLanes;
  // filters'[(oc, ki, kj)][c] = weights[oc][c][KH - 1 - ki][KW - 1 - kj].
  for (std::int64_t oc = 0; oc < out_channels; ++oc) {
    for (std::int64_t c = 0; c < geometry.channels; ++c) {
      for (std::int64_t ki = 0; ki < kh; ++ki) {
        for (std::int64_t kj = 0; kj < kw; ++kj) {
          const std::int64_t row = (oc * kh + ki) * kw + kj;
          convolution.filters_[static_cast<std::size_t>(row * width + c)] =
              weights[((oc * geometry.channels + c) * kh + (kh - 1 - ki)) * kw + (kw - 1 - kj)];
        }
      }
    }
  }
  return convolution;
}

std::int64_t DirectConvolution::padded_floats() const {
  // The padded planes, then the tile's reach past the last plane (a last tile narrower than the
  // others still reads a full tile's width).
  return geometry_.channels * padded_height_ * padded_width_ + tile_ + kLanes;
}

std::int64_t DirectConvolution::scratch_floats() const {
  // The padded image, then one tile's values.
  return padded_floats() + tile_ * blocks_ * kLanes;
}

void DirectConvolution::run(const float* image, float* scratch, float* out) const {
  const Conv2dGeometry& g = geometry_;
  const std::int64_t plane = padded_height_ * padded_width_;
  const std::int64_t padded = padded_floats();
  pad_image(image, g, padded - g.channels * plane, scratch);
  float* tile = scratch + padded;
  const std::int64_t tile_stride = blocks_ * kLanes;
  const TileKernels::Pointer kernel = KernelTable<TileKernels>::find(blocks_, tile_);
  for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
    // Output row oh reads padded rows oh + ki; those of the input are [padding, padding + H).
    const std::int64_t first_kernel_row =
        std::clamp<std::int64_t>(g.padding - oh, 0, g.kernel_height);
    const std::int64_t last_kernel_row =
        std::clamp<std::int64_t>(g.padding + g.height - oh, first_kernel_row, g.kernel_height);
    for (std::int64_t ow = 0; ow < g.out_width; ow += tile_) {
      const TileInput input{.origin = scratch + oh * padded_width_ + ow,
                            .row_stride = padded_width_,
                            .plane_stride = plane,
                            .channels = g.channels,
                            .kernel_height = g.kernel_height,
                            .kernel_width = g.kernel_width,
                            .first_kernel_row = first_kernel_row,
                            .last_kernel_row = last_kernel_row};
      kernel(input, filters_.data(), tile);
      const std::int64_t columns = std::min(tile_, g.out_width - ow);
      for (std::int64_t oc = 0; oc < out_channels_; ++oc) {
        float* row = out + (oc * g.out_height + oh) * g.out_width + ow;
        for (std::int64_t t = 0; t < columns; ++t)
          row[t] = tile[t * tile_stride + oc];
      }
    }
  }
}

bool DirectWeightGradient::suits(const Conv2dGeometry& geometry, std::int64_t out_channels) {
  const std::int64_t blocks = (out_channels + kLanes - 1) / kLanes;
  return DirectConvolution::suits(geometry, out_channels) &&
         geometry.kernel_width <= max_tile(static_cast<int>(blocks));
}

DirectWeightGradient::DirectWeightGradient(const Conv2dGeometry& geometry,
                                           std::int64_t out_channels)
    : geometry_(geometry),
      out_channels_(out_channels),
      blocks_((out_channels + kLanes - 1) / kLanes),
      padded_height_(geometry.height + 2 * geometry.padding),
      padded_width_(geometry.width + 2 * geometry.padding) {}

std::int64_t DirectWeightGradient::scratch_floats() const {
  // The padded image, then its gradient transposed to [OH*OW][registers x 16].
  return geometry_.channels * padded_height_ * padded_width_ +
         geometry_.out_height * geometry_.out_width * blocks_ * kLanes;
}

std::int64_t DirectWeightGradient::sum_floats() const {
  return geometry_.channels * geometry_.kernel_height * geometry_.kernel_width * blocks_ * kLanes;
}

void DirectWeightGradient::accumulate(const float* image, const float* grad, float* scratch,
                                      float* sums) const {
  const Conv2dGeometry& g = geometry_;
  const std::int64_t plane = padded_height_ * padded_width_;
  const std::int64_t positions = g.out_height * g.out_width;
  const std::int64_t width = blocks_ * kLanes;
  pad_image(image, g, 0, scratch);
  float* transposed_grad = scratch + g.channels * plane;
  for (std::int64_t p = 0; p < positions; ++p) {
    float* row = transposed_grad + p * width;
    for (std::int64_t oc = 0; oc < out_channels_; ++oc)
      row[oc] = grad[oc * positions + p];
    for (std::int64_t oc = out_channels_; oc < width; ++oc)
      row[oc] = 0.0f;
  }
  const RowKernels::Pointer kernel = KernelTable<RowKernels>::find(blocks_, g.kernel_width);
  for (std::int64_t c = 0; c < g.channels; ++c) {
    for (std::int64_t ki = 0; ki < g.kernel_height; ++ki) {
      kernel(transposed_grad, scratch + c * plane + ki * padded_width_, padded_width_, g.out_height,
             g.out_width, sums + (c * g.kernel_height + ki) * g.kernel_width * width);
    }
  }
}

void DirectWeightGradient::total(const float* sums, std::int64_t count, float* weight_grad) const {
  const std::int64_t reduction =
      geometry_.channels * geometry_.kernel_height * geometry_.kernel_width;
  const std::int64_t width = blocks_ * kLanes;
  const std::int64_t set = sum_floats();
  for (std::int64_t oc = 0; oc < out_channels_; ++oc) {
    for (std::int64_t r = 0; r < reduction; ++r) {
      float value = sums[r * width + oc];
      for (std::int64_t part = 1; part < count; ++part)
        value += sums[part * set + r * width + oc];
      weight_grad[oc * reduction + r] = value;
    }
  }
}

}  // namespace tscope::engine::cpu
