// im2col and its adjoint col2im: a convolution becomes one GEMM per image over unfolded patches.

#include "cpu/cpu_kernels.h"
#include "kernel_operands.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {

namespace {

// Walks the unfolded patches [batch, channels x kernel height x kernel width, out height x out
// width] against the image [batch, channels, height, width] they unfold: visit(column, pixel) for
// every element of the patches, in order, with `pixel` the image element it covers or -1 where
// that is padding. im2col gathers through this map and col2im, its adjoint, scatters back.
template <typename Visit>
void for_each_patch_element(const Conv2dGeometry& g, Visit visit) {
  const std::int64_t patch = g.channels * g.kernel_height * g.kernel_width;
  const std::int64_t positions = g.out_height * g.out_width;
  for (std::int64_t n = 0; n < g.batch; ++n) {
    for (std::int64_t row = 0; row < patch; ++row) {
      const std::int64_t kj = row % g.kernel_width;
      const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
      const std::int64_t c = row / (g.kernel_width * g.kernel_height);
      const std::int64_t plane = (n * g.channels + c) * g.height * g.width;
      const std::int64_t columns = (n * patch + row) * positions;
      for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
        const std::int64_t ih = oh * g.stride - g.padding + ki;
        for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
          const std::int64_t iw = ow * g.stride - g.padding + kj;
          const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
          visit(columns + oh * g.out_width + ow, inside ? plane + ih * g.width + iw : -1);
        }
      }
    }
  }
}

}  // namespace

Tensor im2col(const Tensor& x, const Conv2dGeometry& g) {
  require_dtype(x, DType::kFloat32, "im2col");
  const Tensor input = dense(x);
  Tensor cols =
      empty({g.batch, g.channels * g.kernel_height * g.kernel_width, g.out_height * g.out_width},
            {.device = x.device()});
  float* out = cols.data<float>();
  const float* in = input.data<float>();
  for_each_patch_element(g, [&](std::int64_t column, std::int64_t pixel) {
    out[column] = pixel < 0 ? 0.0f : in[pixel];
  });
  return cols;
}

Tensor col2im(const Tensor& cols, const Conv2dGeometry& g) {
  require_dtype(cols, DType::kFloat32, "col2im");
  const Tensor input = dense(cols);
  Tensor image = zeros({g.batch, g.channels, g.height, g.width}, {.device = cols.device()});
  float* out = image.data<float>();
  const float* in = input.data<float>();
  for_each_patch_element(g, [&](std::int64_t column, std::int64_t pixel) {
    if (pixel >= 0) out[pixel] += in[column];
  });
  return image;
}

}  // namespace tscope::engine::cpu
