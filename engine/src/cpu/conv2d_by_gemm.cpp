// Convolution as im2col + one GEMM per image, composed from the dispatcher's im2col, col2im, matmul
// and sum: CUDA's conv2d kernels where cuDNN is absent (its ops then run on the device), and the
// reference the CPU's kernels (cpu/conv2d_image_gemm.cpp) are tested against.
//
// The unfolded input [N, C*KH*KW, OH*OW] times the flattened filters [OC, C*KH*KW], broadcast over
// the batch without a copy. im2col and matmul run as ops of their own, so a trace still shows
// the unfolded input's allocation (often a run's largest) under im2col.

#include <array>
#include <span>

#include "cpu/cpu_kernels.h"
#include "dispatch.h"
#include "tscope/engine/autograd.h"

namespace tscope::engine::cpu {
namespace {

struct GemmExtents {
  std::int64_t batch;
  std::int64_t out_channels;
  std::int64_t patch;      // C * KH * KW
  std::int64_t positions;  // OH * OW
};

GemmExtents gemm_extents(const Conv2dGeometry& geometry, std::int64_t out_channels) {
  return {.batch = geometry.batch,
          .out_channels = out_channels,
          .patch = geometry.channels * geometry.kernel_height * geometry.kernel_width,
          .positions = geometry.out_height * geometry.out_width};
}

}  // namespace

std::pair<Tensor, Tensor> conv2d_by_image_gemms(const Tensor& input, const Tensor& weight,
                                                const Conv2dGeometry& geometry) {
  // The caller's op records the gradient; the views below are internal.
  const NoGradGuard no_grad;
  const GemmExtents extents = gemm_extents(geometry, weight.shape()[0]);
  const Tensor cols = run_op<Conv2dLayoutKernel>(OpKind::kIm2col, input, geometry);
  const Tensor filters = weight.reshape({1, extents.out_channels, extents.patch})
                             .expand({extents.batch, extents.out_channels, extents.patch});
  return {
      run_op<BinaryKernel>(OpKind::kMatmul, filters, cols)
          .reshape({extents.batch, extents.out_channels, geometry.out_height, geometry.out_width}),
      cols};
}

Tensor conv2d_backward_input_by_image_gemms(const Tensor& grad, const Tensor& weight,
                                            const Conv2dGeometry& geometry) {
  const NoGradGuard no_grad;
  const GemmExtents extents = gemm_extents(geometry, weight.shape()[0]);
  const Tensor filters_transposed =
      weight.reshape({extents.out_channels, extents.patch})
          .transpose(0, 1)
          .expand({extents.batch, extents.patch, extents.out_channels});
  const Tensor cols_grad =
      run_op<BinaryKernel>(OpKind::kMatmul, filters_transposed,
                           grad.reshape({extents.batch, extents.out_channels, extents.positions}));
  return run_op<Conv2dLayoutKernel>(OpKind::kCol2im, cols_grad, geometry);
}

Tensor conv2d_backward_weight_by_image_gemms(const Tensor& grad, const Tensor& cols,
                                             const Conv2dGeometry& geometry) {
  const NoGradGuard no_grad;
  const GemmExtents extents = gemm_extents(geometry, grad.shape()[1]);
  const Tensor per_image = run_op<BinaryKernel>(
      OpKind::kMatmul, grad.reshape({extents.batch, extents.out_channels, extents.positions}),
      cols.transpose(1, 2));
  constexpr std::array<std::int64_t, 1> kBatchDim{0};
  return run_op<ReduceKernel>(OpKind::kSum, per_image, std::span<const std::int64_t>(kBatchDim))
      .reshape(
          {extents.out_channels, geometry.channels, geometry.kernel_height, geometry.kernel_width});
}

}  // namespace tscope::engine::cpu
