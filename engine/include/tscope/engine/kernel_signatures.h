#pragma once
// The function types kernels implement, one per calling convention, and the geometry structs
// that window ops pass. Every backend registers functions of exactly these types.

#include <cstdint>
#include <span>
#include <utility>

#include "tscope/engine/generator.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// Geometry of a 2-D convolution over input [batch, channels, height, width].
struct Conv2dGeometry {
  std::int64_t batch = 0;
  std::int64_t channels = 0;
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::int64_t kernel_height = 0;
  std::int64_t kernel_width = 0;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t out_height = 0;
  std::int64_t out_width = 0;
};

// Geometry of a 2-D max pooling over input [batch, channels, height, width].
struct Pool2dGeometry {
  std::int64_t batch = 0;
  std::int64_t channels = 0;
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::int64_t kernel = 0;
  std::int64_t stride = 0;
  std::int64_t out_height = 0;
  std::int64_t out_width = 0;
};

// out = f(x)
using UnaryKernel = Tensor (*)(const Tensor& x);
// out = f(x, scalar)
using UnaryScalarKernel = Tensor (*)(const Tensor& x, double scalar);
// out = f(a, b), a and b broadcast against each other
using BinaryKernel = Tensor (*)(const Tensor& a, const Tensor& b);
// Sums over `dims` (sorted, distinct, wrapped), keeping them as size 1.
using ReduceKernel = Tensor (*)(const Tensor& x, std::span<const std::int64_t> dims);
// Max over `dim`, kept as size 1: values and int64 indices.
using ArgReduceKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, std::int64_t dim);
// Gradient of an arg-reduction: `grad` placed at `indices` along `dim` of a zero tensor of `shape`.
using ArgReduceBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& indices,
                                           std::int64_t dim, std::span<const std::int64_t> shape);
// im2col ([N, C, H, W] -> [N, C*KH*KW, OH*OW]) and col2im (its adjoint).
using Conv2dLayoutKernel = Tensor (*)(const Tensor& x, const Conv2dGeometry& geometry);
using Pool2dKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, const Pool2dGeometry& geometry);
using Pool2dBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& indices,
                                        const Pool2dGeometry& geometry);
// Gradient of the mean negative log-likelihood with respect to log-probabilities [N, C].
using NllBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& targets,
                                     std::int64_t classes);
// dst = f(dst, src), src broadcast to dst's shape
using InplaceBinaryKernel = void (*)(Tensor& dst, const Tensor& src);
using InplaceBinaryScalarKernel = void (*)(Tensor& dst, const Tensor& src, double scalar);
using InplaceScalarKernel = void (*)(Tensor& dst, double scalar);
using RandomFillKernel = void (*)(Tensor& dst, double first, double second, Generator& generator);

}  // namespace tscope::engine
