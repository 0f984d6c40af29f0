// The CPU's conv2d kernels: the whole batch unfolded into one matrix whose columns are the output
// positions of every image ([C*KH*KW, N*OH*OW]), so that the forward pass, the weight gradient and
// the input gradient are each one GEMM with the batch inside its widest dimension instead of one
// small GEMM per image (and the weight gradient needs no per-image products summed afterwards).
// The per-image composition of ops (cpu/conv2d_by_gemm.cpp) is the reference they are tested
// against.

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "cpu/strided_loop.h"
#include "current_op.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

struct BatchGemmExtents {
  std::int64_t patch;      // C * KH * KW: rows of the unfolded batch
  std::int64_t positions;  // OH * OW: columns per image
  std::int64_t columns;    // N * OH * OW
};

BatchGemmExtents extents_of(const Conv2dGeometry& g) {
  const std::int64_t positions = g.out_height * g.out_width;
  return {.patch = g.channels * g.kernel_height * g.kernel_width,
          .positions = positions,
          .columns = g.batch * positions};
}

int blas_int(std::int64_t value) {
  if (value > INT_MAX) {
    throw EngineError("conv2d: GEMM extent " + std::to_string(value) +
                      " exceeds what BLAS accepts");
  }
  return static_cast<int>(value);
}

// The output columns [first, last) of one row of an image whose input column is in range, for
// kernel column kj: ow * stride - padding + kj in [0, width).
std::pair<std::int64_t, std::int64_t> valid_columns(const Conv2dGeometry& g, std::int64_t kj) {
  const std::int64_t shift = g.padding - kj;
  const std::int64_t first =
      std::clamp<std::int64_t>((shift + g.stride - 1) / g.stride, 0, g.out_width);
  const std::int64_t last =
      std::clamp<std::int64_t>((g.width + shift + g.stride - 1) / g.stride, first, g.out_width);
  return {first, last};
}

// Visits each (unfolded row, image, output row) of the images [first_image, last_image) with the
// input row it reads (null when that row is padding) and the matching run of `columns` in the
// unfolded matrix. Images touch disjoint columns and disjoint input planes, so ranges of images
// can be visited in parallel, whether unfolding or folding back.
template <typename Visit>
void for_each_unfolded_row(const Conv2dGeometry& g, const BatchGemmExtents& e,
                           std::int64_t first_image, std::int64_t last_image, Visit&& visit) {
  for (std::int64_t row = 0; row < e.patch; ++row) {
    const std::int64_t kj = row % g.kernel_width;
    const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
    const std::int64_t c = row / (g.kernel_width * g.kernel_height);
    const auto [first, last] = valid_columns(g, kj);
    for (std::int64_t n = first_image; n < last_image; ++n) {
      const std::int64_t plane = (n * g.channels + c) * g.height * g.width;
      for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
        const std::int64_t ih = oh * g.stride - g.padding + ki;
        const std::int64_t column = row * e.columns + n * e.positions + oh * g.out_width;
        const bool inside = ih >= 0 && ih < g.height;
        // iw = ow * stride - padding + kj, so input column of output column `first`:
        const std::int64_t input_at = plane + ih * g.width + first * g.stride - g.padding + kj;
        visit(column, inside ? input_at : -1, first, last);
      }
    }
  }
}

// Images per range of a parallel unfold or fold: enough unfolded values for one range's worth.
std::int64_t images_per_range(const BatchGemmExtents& e) {
  return std::max<std::int64_t>(
      1, kElementwiseGrain / std::max<std::int64_t>(1, e.patch * e.positions));
}

// cols[row][n * OH * OW + p] = the input under kernel offset `row` at output position p of image n.
void unfold_images(const float* __restrict input, float* __restrict cols, const Conv2dGeometry& g,
                   const BatchGemmExtents& e, std::int64_t first_image, std::int64_t last_image) {
  for_each_unfolded_row(
      g, e, first_image, last_image,
      [&](std::int64_t column, std::int64_t input_at, std::int64_t first, std::int64_t last) {
        float* dst = cols + column;
        if (input_at < 0) {
          std::fill(dst, dst + g.out_width, 0.0f);
          return;
        }
        std::fill(dst, dst + first, 0.0f);
        const float* src = input + input_at;
        if (g.stride == 1) {
          std::copy(src, src + (last - first), dst + first);
        } else {
          for (std::int64_t ow = first; ow < last; ++ow)
            dst[ow] = src[(ow - first) * g.stride];
        }
        std::fill(dst + last, dst + g.out_width, 0.0f);
      });
}

// The adjoint of unfold_images: every column's value added back to the input position it came
// from.
void fold_images(const float* __restrict cols, float* __restrict image, const Conv2dGeometry& g,
                 const BatchGemmExtents& e, std::int64_t first_image, std::int64_t last_image) {
  for_each_unfolded_row(
      g, e, first_image, last_image,
      [&](std::int64_t column, std::int64_t input_at, std::int64_t first, std::int64_t last) {
        if (input_at < 0) return;
        const float* src = cols + column;
        float* dst = image + input_at;
        for (std::int64_t ow = first; ow < last; ++ow)
          dst[(ow - first) * g.stride] += src[ow];
      });
}

void unfold_batch(const float* input, float* cols, const Conv2dGeometry& g,
                  const BatchGemmExtents& e) {
  parallel_for(g.batch, images_per_range(e), [&](std::int64_t begin, std::int64_t end) {
    unfold_images(input, cols, g, e, begin, end);
  });
}

void fold_batch(const float* cols, float* image, const Conv2dGeometry& g,
                const BatchGemmExtents& e) {
  parallel_for(g.batch, images_per_range(e), [&](std::int64_t begin, std::int64_t end) {
    fold_images(cols, image, g, e, begin, end);
  });
}

// Visits the runs of OH*OW floats of each (image, channel) in the batch-major layout
// [N, OC, OH*OW] and in the column order of the unfolded batch, [OC, N*OH*OW]:
// move(batch_major, column_major, oc) with both offsets, images split over the intra-op pool.
template <typename MoveRun>
void for_each_run(std::int64_t out_channels, const BatchGemmExtents& e, std::int64_t batch,
                  MoveRun&& move) {
  const std::int64_t grain = std::max<std::int64_t>(
      1, kElementwiseGrain / std::max<std::int64_t>(1, out_channels * e.positions));
  parallel_for(batch, grain, [&](std::int64_t first_image, std::int64_t last_image) {
    for (std::int64_t n = first_image; n < last_image; ++n) {
      for (std::int64_t oc = 0; oc < out_channels; ++oc) {
        move((n * out_channels + oc) * e.positions, oc * e.columns + n * e.positions, oc);
      }
    }
  });
}

// [N, OC, OH*OW] -> [OC, N*OH*OW], as the gradients' GEMMs read the output gradient.
void runs_to_columns(const float* src, float* dst, std::int64_t out_channels,
                     const BatchGemmExtents& e, std::int64_t batch) {
  const auto run_bytes = static_cast<std::size_t>(e.positions) * sizeof(float);
  for_each_run(out_channels, e, batch,
               [&](std::int64_t batch_major, std::int64_t column_major, std::int64_t) {
                 std::memcpy(dst + column_major, src + batch_major, run_bytes);
               });
}

// The forward GEMM's product [OC, N*OH*OW] into the output [N, OC, OH*OW]. With a bias, each
// value becomes relu(value + bias[oc]) on the way, computed as add and then relu compute it, so
// the fused op's output is bit for bit the unfused chain's without its two extra passes.
void columns_to_output(const float* __restrict src, float* __restrict dst,
                       const float* __restrict bias, std::int64_t out_channels,
                       const BatchGemmExtents& e, std::int64_t batch) {
  if (bias == nullptr) {
    const auto run_bytes = static_cast<std::size_t>(e.positions) * sizeof(float);
    for_each_run(out_channels, e, batch,
                 [&](std::int64_t batch_major, std::int64_t column_major, std::int64_t) {
                   std::memcpy(dst + batch_major, src + column_major, run_bytes);
                 });
    return;
  }
  for_each_run(out_channels, e, batch,
               [&](std::int64_t batch_major, std::int64_t column_major, std::int64_t oc) {
                 const float shift = bias[oc];
                 const float* in = src + column_major;
                 float* out = dst + batch_major;
                 for (std::int64_t p = 0; p < e.positions; ++p) {
                   const float pre_activation = in[p] + shift;
                   out[p] = pre_activation > 0.0f ? pre_activation : 0.0f;
                 }
               });
}

// grad [N, OC, OH, OW] as [OC, N*OH*OW].
Tensor channel_major(const Tensor& grad, std::int64_t out_channels, const BatchGemmExtents& e,
                     std::int64_t batch) {
  const Tensor incoming = dense(grad);
  Tensor result = empty({out_channels, e.columns}, {.device = grad.device()});
  runs_to_columns(incoming.data<float>(), result.data<float>(), out_channels, e, batch);
  return result;
}

// The forward pass, with relu(. + bias) applied as the product is moved into the output when
// `bias` is not null.
std::pair<Tensor, Tensor> convolve(const Tensor& input, const Tensor& weight,
                                   const Conv2dGeometry& geometry, const float* bias) {
  configure_threads_once();
  const BatchGemmExtents e = extents_of(geometry);
  const std::int64_t out_channels = weight.shape()[0];
  const Tensor image = dense(input);
  const Tensor filters = dense(weight);
  Tensor cols;
  {
    // The unfolded batch is often a run's largest block; its allocation is named as im2col's,
    // as it is where the unfolding runs as an op of its own (cpu/conv2d_by_gemm.cpp).
    const CurrentOpScope unfolding("im2col");
    cols = empty({e.patch, e.columns}, {.device = input.device()});
  }
  Tensor out = empty({geometry.batch, out_channels, geometry.out_height, geometry.out_width},
                     {.device = input.device()});
  if (out.numel() == 0) return {out, cols};
  unfold_batch(image.data<float>(), cols.data<float>(), geometry, e);
  Tensor product = empty({out_channels, e.columns}, {.device = input.device()});
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(out_channels),
              blas_int(e.columns), blas_int(e.patch), 1.0f, filters.data<float>(),
              blas_int(e.patch), cols.data<float>(), blas_int(e.columns), 0.0f,
              product.data<float>(), blas_int(e.columns));
  columns_to_output(product.data<float>(), out.data<float>(), bias, out_channels, e,
                    geometry.batch);
  return {out, cols};
}

}  // namespace

std::pair<Tensor, Tensor> conv2d(const Tensor& input, const Tensor& weight,
                                 const Conv2dGeometry& geometry) {
  require_dtype(input, DType::kFloat32, "conv2d");
  require_dtype(weight, DType::kFloat32, "conv2d");
  return convolve(input, weight, geometry, nullptr);
}

std::pair<Tensor, Tensor> conv2d_bias_relu(const Tensor& input, const Tensor& weight,
                                           const Tensor& bias, const Conv2dGeometry& geometry) {
  for (const Tensor* operand : {&input, &weight, &bias}) {
    require_dtype(*operand, DType::kFloat32, "conv2d_bias_relu");
  }
  if (bias.shape() != Shape{weight.shape()[0]}) {
    throw EngineError("conv2d_bias_relu: expected a bias of " +
                      shape_to_string(Shape{weight.shape()[0]}) + ", got " +
                      shape_to_string(bias.shape()));
  }
  const Tensor shift = dense(bias);
  return convolve(input, weight, geometry, shift.data<float>());
}

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight,
                             const Conv2dGeometry& geometry) {
  require_dtype(grad, DType::kFloat32, "conv2d_backward_input");
  require_dtype(weight, DType::kFloat32, "conv2d_backward_input");
  configure_threads_once();
  const BatchGemmExtents e = extents_of(geometry);
  const std::int64_t out_channels = weight.shape()[0];
  Tensor image = zeros({geometry.batch, geometry.channels, geometry.height, geometry.width},
                       {.device = grad.device()});
  if (image.numel() == 0 || e.columns == 0) return image;
  const Tensor filters = dense(weight);
  const Tensor grad_columns = channel_major(grad, out_channels, e, geometry.batch);
  Tensor cols_grad = empty({e.patch, e.columns}, {.device = grad.device()});
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, blas_int(e.patch), blas_int(e.columns),
              blas_int(out_channels), 1.0f, filters.data<float>(), blas_int(e.patch),
              grad_columns.data<float>(), blas_int(e.columns), 0.0f, cols_grad.data<float>(),
              blas_int(e.columns));
  fold_batch(cols_grad.data<float>(), image.data<float>(), geometry, e);
  return image;
}

Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& cols,
                              const Conv2dGeometry& geometry) {
  require_dtype(grad, DType::kFloat32, "conv2d_backward_weight");
  require_dtype(cols, DType::kFloat32, "conv2d_backward_weight");
  configure_threads_once();
  const BatchGemmExtents e = extents_of(geometry);
  const std::int64_t out_channels = grad.shape()[1];
  if (cols.shape() != Shape{e.patch, e.columns}) {
    throw EngineError("conv2d_backward_weight: expected the unfolded batch " +
                      shape_to_string(Shape{e.patch, e.columns}) + ", got " +
                      shape_to_string(cols.shape()));
  }
  Tensor weight_grad =
      empty({out_channels, geometry.channels, geometry.kernel_height, geometry.kernel_width},
            {.device = grad.device()});
  if (weight_grad.numel() == 0) return weight_grad;
  if (e.columns == 0) return zeros(weight_grad.shape(), {.device = grad.device()});
  const Tensor unfolded = dense(cols);
  const Tensor grad_columns = channel_major(grad, out_channels, e, geometry.batch);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas_int(out_channels), blas_int(e.patch),
              blas_int(e.columns), 1.0f, grad_columns.data<float>(), blas_int(e.columns),
              unfolded.data<float>(), blas_int(e.columns), 0.0f, weight_grad.data<float>(),
              blas_int(e.patch));
  return weight_grad;
}

}  // namespace tscope::engine::cpu
