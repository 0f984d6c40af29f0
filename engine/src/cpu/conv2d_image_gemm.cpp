// The CPU's conv2d kernels: one image at a time, its patches unfolded into a scratch matrix
// [C*KH*KW, OH*OW] small enough to stay in the core's cache, and one GEMM against it that reads
// and writes the image's own rows of the output and its gradient ([OC, OH*OW] of [N, OC, OH*OW]):
// no unfolded batch in memory, nothing regrouped between the batch-major tensors and a GEMM's
// layout, and the weight gradient accumulated image by image. The images are split among the
// intra-op pool's threads, each running single-threaded GEMMs on its own scratch, as these GEMMs
// are too small for BLAS to split well. Where the CPU and the layer suit them, the direct kernels
// of cpu/conv2d_direct.h take the place of unfold and GEMM. The per-image composition of ops
// (cpu/conv2d_by_gemm.cpp) is the reference both are tested against.

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "cpu/conv2d_direct.h"
#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "current_op.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/threads.h"

namespace tscope::engine::cpu {
namespace {

int blas_int(std::int64_t value) {
  if (value > INT_MAX) {
    throw EngineError("conv2d: GEMM extent " + std::to_string(value) +
                      " exceeds what BLAS accepts");
  }
  return static_cast<int>(value);
}

// C [m, n] = op(A) op(B) + beta C, row-major, with the extents checked against BLAS's int.
void sgemm(CBLAS_TRANSPOSE a_op, CBLAS_TRANSPOSE b_op, std::int64_t m, std::int64_t n,
           std::int64_t k, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
  cblas_sgemm(CblasRowMajor, a_op, b_op, blas_int(m), blas_int(n), blas_int(k), 1.0f, a,
              blas_int(lda), b, blas_int(ldb), beta, c, blas_int(ldc));
}

struct ImageExtents {
  std::int64_t patch;      // C * KH * KW: rows of an unfolded image
  std::int64_t positions;  // OH * OW: its columns
  std::int64_t pixels;     // C * H * W: floats of an input image
};

ImageExtents extents_of(const Conv2dGeometry& g) {
  return {.patch = g.channels * g.kernel_height * g.kernel_width,
          .positions = g.out_height * g.out_width,
          .pixels = g.channels * g.height * g.width};
}

// One row of an unfolded image, for kernel offset (c, ki, kj): output rows [0, rows_first) and
// [rows_last, OH) read padding only; in output row oh of [rows_first, rows_last), columns
// [first, last) read the input from `input_at + (oh - rows_first) * row_step` on, every
// `stride`-th float, and the other columns read padding. `input_at` is an image offset only when
// both ranges are non-empty.
struct UnfoldedRow {
  std::int64_t rows_first;
  std::int64_t rows_last;
  std::int64_t first;
  std::int64_t last;
  std::int64_t input_at;
  std::int64_t row_step;
};

// The output positions [first, last) along one axis whose input, position * stride - padding +
// offset, lies in [0, extent).
std::pair<std::int64_t, std::int64_t> valid_range(std::int64_t extent, std::int64_t out_extent,
                                                  std::int64_t stride, std::int64_t padding,
                                                  std::int64_t offset) {
  const std::int64_t shift = padding - offset;
  const std::int64_t first = std::clamp<std::int64_t>((shift + stride - 1) / stride, 0, out_extent);
  const std::int64_t last =
      std::clamp<std::int64_t>((extent + shift + stride - 1) / stride, first, out_extent);
  return {first, last};
}

UnfoldedRow unfolded_row(const Conv2dGeometry& g, std::int64_t row) {
  const std::int64_t kj = row % g.kernel_width;
  const std::int64_t ki = (row / g.kernel_width) % g.kernel_height;
  const std::int64_t c = row / (g.kernel_width * g.kernel_height);
  const auto [rows_first, rows_last] = valid_range(g.height, g.out_height, g.stride, g.padding, ki);
  const auto [first, last] = valid_range(g.width, g.out_width, g.stride, g.padding, kj);
  const std::int64_t ih = rows_first * g.stride - g.padding + ki;
  const std::int64_t iw = first * g.stride - g.padding + kj;
  return {.rows_first = rows_first,
          .rows_last = rows_last,
          .first = first,
          .last = last,
          .input_at = (c * g.height + ih) * g.width + iw,
          .row_step = g.stride * g.width};
}

// Every row of an unfolded image: computed once per convolution and shared by its images, as a
// row's description takes several integer divisions, which cost more than copying the row.
std::vector<UnfoldedRow> unfolded_rows(const Conv2dGeometry& g, const ImageExtents& e) {
  std::vector<UnfoldedRow> rows;
  rows.reserve(static_cast<std::size_t>(e.patch));
  for (std::int64_t row = 0; row < e.patch; ++row)
    rows.push_back(unfolded_row(g, row));
  return rows;
}

// Keeps GCC from turning a copy or fill loop back into a memcpy or memset call (glibc's
// inhibit_loop_to_libcall does the same): the unfold's runs are one output row of floats.
#if defined(__GNUC__) && !defined(__clang__)
#define TSCOPE_INHIBIT_LOOP_TO_LIBCALL [[gnu::optimize("no-tree-loop-distribute-patterns")]]
#else
#define TSCOPE_INHIBIT_LOOP_TO_LIBCALL
#endif

// cols[row][p] = the image's input under kernel offset `row` at output position p. Plain loops
// rather than std::copy and std::fill: a run is OW floats (10 in the example's second layer), and
// a call to memmove or memset per run costs more than the run itself.
TSCOPE_INHIBIT_LOOP_TO_LIBCALL void unfold_image(const float* __restrict image,
                                                 float* __restrict cols,
                                                 const std::vector<UnfoldedRow>& rows,
                                                 const Conv2dGeometry& g, const ImageExtents& e) {
  const std::int64_t width = g.out_width;
  for (std::int64_t row = 0; row < e.patch; ++row) {
    const UnfoldedRow& r = rows[static_cast<std::size_t>(row)];
    float* dst = cols + row * e.positions;
    for (std::int64_t i = 0; i < r.rows_first * width; ++i)
      dst[i] = 0.0f;
    for (std::int64_t i = r.rows_last * width; i < e.positions; ++i)
      dst[i] = 0.0f;
    const std::int64_t run = r.last - r.first;
    if (g.stride == 1 && run == width) {
      // The whole output row reads the input: the common case, one copy per output row.
      for (std::int64_t oh = r.rows_first; oh < r.rows_last; ++oh) {
        const float* src = image + r.input_at + (oh - r.rows_first) * r.row_step;
        float* out = dst + oh * width;
        for (std::int64_t i = 0; i < width; ++i)
          out[i] = src[i];
      }
      continue;
    }
    for (std::int64_t oh = r.rows_first; oh < r.rows_last; ++oh) {
      const float* src = image + r.input_at + (oh - r.rows_first) * r.row_step;
      float* out = dst + oh * width;
      for (std::int64_t i = 0; i < r.first; ++i)
        out[i] = 0.0f;
      for (std::int64_t i = 0; i < run; ++i)
        out[r.first + i] = src[i * g.stride];
      for (std::int64_t i = r.last; i < width; ++i)
        out[i] = 0.0f;
    }
  }
}

// The adjoint of unfold_image: the image set to the sum, over the columns, of every value at the
// input position it came from.
void fold_image(const float* __restrict cols, float* __restrict image,
                const std::vector<UnfoldedRow>& rows, const Conv2dGeometry& g,
                const ImageExtents& e) {
  std::fill(image, image + e.pixels, 0.0f);
  const std::int64_t width = g.out_width;
  for (std::int64_t row = 0; row < e.patch; ++row) {
    const UnfoldedRow& r = rows[static_cast<std::size_t>(row)];
    const float* src = cols + row * e.positions;
    const std::int64_t run = r.last - r.first;
    if (run == 0) continue;
    for (std::int64_t oh = r.rows_first; oh < r.rows_last; ++oh) {
      float* dst = image + r.input_at + (oh - r.rows_first) * r.row_step;
      const float* in = src + oh * width + r.first;
      if (g.stride == 1) {
        for (std::int64_t i = 0; i < run; ++i)
          dst[i] += in[i];
      } else {
        for (std::int64_t i = 0; i < run; ++i)
          dst[i * g.stride] += in[i];
      }
    }
  }
}

// The batch split into one part per thread of the intra-op pool (fewer for a smaller batch), each
// with `scratch_floats` of scratch, allocated by the calling thread before the parts run, as
// `scratch_owner`'s when that is not null.
class ImageParts {
 public:
  ImageParts(std::int64_t batch, std::int64_t scratch_floats, Device device,
             const char* scratch_owner)
      : batch_(batch),
        count_(std::min<std::int64_t>(batch, engine::num_threads())),
        scratch_floats_(scratch_floats),
        scratch_(allocate_scratch(device, scratch_owner)) {}

  std::int64_t count() const { return count_; }

  // Runs images(part, first, last, scratch) for every part, part p taking images
  // [first_image(p), first_image(p + 1)), in parallel with single-threaded GEMMs.
  template <typename Images>
  void run(Images&& images) const {
    parallel_gemms(count_, [&](std::int64_t first_part, std::int64_t last_part) {
      for (std::int64_t part = first_part; part < last_part; ++part) {
        images(part, first_image(part), first_image(part + 1),
               scratch_.data<float>() + part * scratch_floats_);
      }
    });
  }

 private:
  Tensor allocate_scratch(Device device, const char* owner) const {
    const std::optional<CurrentOpScope> named =
        owner == nullptr ? std::nullopt : std::optional<CurrentOpScope>(std::in_place, owner);
    return empty({count_, scratch_floats_}, {.device = device});
  }
  std::int64_t first_image(std::int64_t part) const { return batch_ * part / count_; }

  std::int64_t batch_;
  std::int64_t count_;
  std::int64_t scratch_floats_;
  Tensor scratch_;
};

// An image's unfolding: the unfolded rows' descriptions, computed once per convolution.
class ImageUnfolding {
 public:
  ImageUnfolding(const Conv2dGeometry& geometry, const ImageExtents& extents)
      : geometry_(geometry), extents_(extents), rows_(unfolded_rows(geometry, extents)) {}

  void unfold(const float* image, float* cols) const {
    unfold_image(image, cols, rows_, geometry_, extents_);
  }
  void fold(const float* cols, float* image) const {
    fold_image(cols, image, rows_, geometry_, extents_);
  }

 private:
  Conv2dGeometry geometry_;
  ImageExtents extents_;
  std::vector<UnfoldedRow> rows_;
};

// Parts whose scratch is one unfolded image, named as im2col's allocation (the op that unfolds
// where convolution is composed of ops, cpu/conv2d_by_gemm.cpp).
ImageParts unfolding_parts(const Conv2dGeometry& geometry, const ImageExtents& e, Device device) {
  return ImageParts(geometry.batch, e.patch * e.positions, device, "im2col");
}

// relu(value + bias[oc]) over an image's output [OC, OH*OW], computed as add and then relu
// compute it, so that the fused op's output is bit for bit the unfused chain's.
void add_bias_relu(float* __restrict out, const float* __restrict bias, std::int64_t out_channels,
                   std::int64_t positions) {
  for (std::int64_t oc = 0; oc < out_channels; ++oc) {
    const float shift = bias[oc];
    float* row = out + oc * positions;
    for (std::int64_t p = 0; p < positions; ++p) {
      const float pre_activation = row[p] + shift;
      row[p] = pre_activation > 0.0f ? pre_activation : 0.0f;
    }
  }
}

// The forward pass, with relu(. + bias) applied to each image's output while it is in cache when
// `bias` is not null. Nothing is saved for the weight gradient: it reads the input again.
std::pair<Tensor, Tensor> convolve(const Tensor& input, const Tensor& weight,
                                   const Conv2dGeometry& geometry, const float* bias) {
  const ImageExtents e = extents_of(geometry);
  const std::int64_t out_channels = weight.shape()[0];
  Tensor out = empty({geometry.batch, out_channels, geometry.out_height, geometry.out_width},
                     {.device = input.device()});
  if (out.numel() == 0) return {out, Tensor()};
  const Tensor image = dense(input);
  const Tensor filters = dense(weight);
  const float* images = image.data<float>();
  float* outputs = out.data<float>();
  const std::int64_t output_floats = out_channels * e.positions;
  if (DirectConvolution::suits(geometry, out_channels)) {
    const DirectConvolution direct =
        DirectConvolution::forward(geometry, filters.data<float>(), out_channels);
    const ImageParts parts(geometry.batch, direct.scratch_floats(), input.device(), nullptr);
    parts.run([&](std::int64_t, std::int64_t first, std::int64_t last, float* scratch) {
      for (std::int64_t n = first; n < last; ++n) {
        float* output = outputs + n * output_floats;
        direct.run(images + n * e.pixels, scratch, output);
        if (bias != nullptr) add_bias_relu(output, bias, out_channels, e.positions);
      }
    });
    return {out, Tensor()};
  }
  const ImageUnfolding unfolding(geometry, e);
  const ImageParts parts = unfolding_parts(geometry, e, input.device());
  parts.run([&](std::int64_t, std::int64_t first, std::int64_t last, float* cols) {
    for (std::int64_t n = first; n < last; ++n) {
      float* output = outputs + n * output_floats;
      unfolding.unfold(images + n * e.pixels, cols);
      sgemm(CblasNoTrans, CblasNoTrans, out_channels, e.positions, e.patch, filters.data<float>(),
            e.patch, cols, e.positions, 0.0f, output, e.positions);
      if (bias != nullptr) add_bias_relu(output, bias, out_channels, e.positions);
    }
  });
  return {out, Tensor()};
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
  const ImageExtents e = extents_of(geometry);
  const std::int64_t out_channels = weight.shape()[0];
  Tensor image = empty({geometry.batch, geometry.channels, geometry.height, geometry.width},
                       {.device = grad.device()});
  if (image.numel() == 0) return image;
  if (e.positions == 0 || out_channels == 0) return zeros(image.shape(), {.device = grad.device()});
  const Tensor filters = dense(weight);
  const Tensor incoming = dense(grad);
  const float* grads = incoming.data<float>();
  float* images = image.data<float>();
  const std::int64_t grad_floats = out_channels * e.positions;
  if (DirectConvolution::suits_input_gradient(geometry, out_channels)) {
    const DirectConvolution direct =
        DirectConvolution::input_gradient(geometry, filters.data<float>(), out_channels);
    const ImageParts parts(geometry.batch, direct.scratch_floats(), grad.device(), nullptr);
    parts.run([&](std::int64_t, std::int64_t first, std::int64_t last, float* scratch) {
      for (std::int64_t n = first; n < last; ++n)
        direct.run(grads + n * grad_floats, scratch, images + n * e.pixels);
    });
    return image;
  }
  const ImageUnfolding unfolding(geometry, e);
  const ImageParts parts = unfolding_parts(geometry, e, grad.device());
  parts.run([&](std::int64_t, std::int64_t first, std::int64_t last, float* cols_grad) {
    for (std::int64_t n = first; n < last; ++n) {
      sgemm(CblasTrans, CblasNoTrans, e.patch, e.positions, out_channels, filters.data<float>(),
            e.patch, grads + n * grad_floats, e.positions, 0.0f, cols_grad, e.positions);
      unfolding.fold(cols_grad, images + n * e.pixels);
    }
  });
  return image;
}

// `input` is the convolution's input: the forward pass saves nothing, this reads it again.
Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& input,
                              const Conv2dGeometry& geometry) {
  require_dtype(grad, DType::kFloat32, "conv2d_backward_weight");
  require_dtype(input, DType::kFloat32, "conv2d_backward_weight");
  const ImageExtents e = extents_of(geometry);
  const std::int64_t out_channels = grad.shape()[1];
  const Shape input_shape{geometry.batch, geometry.channels, geometry.height, geometry.width};
  if (input.shape() != input_shape) {
    throw EngineError("conv2d_backward_weight: expected the convolution's input " +
                      shape_to_string(input_shape) + ", got " + shape_to_string(input.shape()));
  }
  const Shape weight_shape{out_channels, geometry.channels, geometry.kernel_height,
                           geometry.kernel_width};
  if (shape_numel(weight_shape) == 0) return empty(weight_shape, {.device = grad.device()});
  if (geometry.batch == 0 || e.positions == 0)
    return zeros(weight_shape, {.device = grad.device()});
  const Tensor image = dense(input);
  const Tensor incoming = dense(grad);
  const float* images = image.data<float>();
  const float* grads = incoming.data<float>();
  const std::int64_t grad_floats = out_channels * e.positions;
  Tensor weight_grad = empty(weight_shape, {.device = grad.device()});
  if (DirectWeightGradient::suits(geometry, out_channels)) {
    const DirectWeightGradient direct(geometry, out_channels);
    const ImageParts parts(geometry.batch, direct.scratch_floats(), grad.device(), nullptr);
    // Sums per part, totalled in part order afterwards, as below.
    Tensor sums = zeros({parts.count(), direct.sum_floats()}, {.device = grad.device()});
    parts.run([&](std::int64_t part, std::int64_t first, std::int64_t last, float* scratch) {
      float* part_sums = sums.data<float>() + part * direct.sum_floats();
      for (std::int64_t n = first; n < last; ++n)
        direct.accumulate(images + n * e.pixels, grads + n * grad_floats, scratch, part_sums);
    });
    direct.total(sums.data<float>(), parts.count(), weight_grad.data<float>());
    return weight_grad;
  }
  const ImageUnfolding unfolding(geometry, e);
  const ImageParts parts = unfolding_parts(geometry, e, grad.device());
  // Each part sums its images' products into a slice of its own; the slices are added in part
  // order afterwards, so the result depends on the thread count only through that order.
  Tensor partial_sums = empty({parts.count(), out_channels, e.patch}, {.device = grad.device()});
  parts.run([&](std::int64_t part, std::int64_t first, std::int64_t last, float* cols) {
    float* sum = partial_sums.data<float>() + part * out_channels * e.patch;
    for (std::int64_t n = first; n < last; ++n) {
      unfolding.unfold(images + n * e.pixels, cols);
      sgemm(CblasNoTrans, CblasTrans, out_channels, e.patch, e.positions, grads + n * grad_floats,
            e.positions, cols, e.positions, n == first ? 0.0f : 1.0f, sum, e.patch);
    }
  });
  float* total = weight_grad.data<float>();
  const float* sums = partial_sums.data<float>();
  const std::int64_t values = out_channels * e.patch;
  std::copy(sums, sums + values, total);
  for (std::int64_t part = 1; part < parts.count(); ++part) {
    const float* slice = sums + part * values;
    for (std::int64_t i = 0; i < values; ++i)
      total[i] += slice[i];
  }
  return weight_grad;
}

}  // namespace tscope::engine::cpu
