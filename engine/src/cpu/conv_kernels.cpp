// im2col and its adjoint col2im: a convolution becomes one GEMM per image over unfolded patches.

#include "cpu/cpu_kernels.h"
#include "kernel_operands.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {

Tensor im2col(const Tensor& x, const Conv2dGeometry& g) {
  require_dtype(x, DType::kFloat32, "im2col");
  const Tensor input = dense(x);
  const std::int64_t patch = g.channels * g.kernel_height * g.kernel_width;
  const std::int64_t positions = g.out_height * g.out_width;
  Tensor cols = empty({g.batch, patch, positions}, {.device = x.device()});
  float* out = cols.data<float>();
  const float* in = input.data<float>();
  for (std::int64_t n = 0; n < g.batch; ++n) {
    for (std::int64_t row = 0; row < patch; ++row) {
      const std::int64_t kj = row % g.kernel_width;
      const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
      const std::int64_t c = row / (g.kernel_width * g.kernel_height);
      const float* plane = in + (n * g.channels + c) * g.height * g.width;
      float* dst = out + (n * patch + row) * positions;
      for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
        const std::int64_t ih = oh * g.stride - g.padding + ki;
        for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
          const std::int64_t iw = ow * g.stride - g.padding + kj;
          const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
          dst[oh * g.out_width + ow] = inside ? plane[ih * g.width + iw] : 0.0f;
        }
      }
    }
  }
  return cols;
}

Tensor col2im(const Tensor& cols, const Conv2dGeometry& g) {
  require_dtype(cols, DType::kFloat32, "col2im");
  const Tensor input = dense(cols);
  const std::int64_t patch = g.channels * g.kernel_height * g.kernel_width;
  const std::int64_t positions = g.out_height * g.out_width;
  Tensor image = zeros({g.batch, g.channels, g.height, g.width}, {.device = cols.device()});
  float* out = image.data<float>();
  const float* in = input.data<float>();
  for (std::int64_t n = 0; n < g.batch; ++n) {
    for (std::int64_t row = 0; row < patch; ++row) {
      const std::int64_t kj = row % g.kernel_width;
      const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
      const std::int64_t c = row / (g.kernel_width * g.kernel_height);
      float* plane = out + (n * g.channels + c) * g.height * g.width;
      const float* src = in + (n * patch + row) * positions;
      for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
        const std::int64_t ih = oh * g.stride - g.padding + ki;
        if (ih < 0 || ih >= g.height) continue;
        for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
          const std::int64_t iw = ow * g.stride - g.padding + kj;
          if (iw >= 0 && iw < g.width) plane[ih * g.width + iw] += src[oh * g.out_width + ow];
        }
      }
    }
  }
  return image;
}

}  // namespace tscope::engine::cpu
