// 2-D max pooling on the CPU; each output remembers which input position won, so backward only
// has to route gradients there. Planes (image, channel) are independent: the pool's threads take
// ranges of them. 2 x 2 windows at stride 2 go a row at a time through cpu/max_pool_2x2.h where
// the CPU has AVX-512; the loops here are its reference.

#include <algorithm>

#include "cpu/cpu_kernels.h"
#include "cpu/intra_op_pool.h"
#include "cpu/max_pool_2x2.h"
#include "kernel_operands.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

std::int64_t planes_per_range(const Pool2dGeometry& g) {
  return std::max<std::int64_t>(1,
                                kElementwiseGrain / std::max<std::int64_t>(1, g.height * g.width));
}

// Pools the planes [begin, end): each output takes the first maximum of its window in row-major
// order (a NaN wins only from the window's first position). The window is kKernel x
// kKernel when kKernel > 0, known at compile time so that its loops unroll (the common 2 x 2),
// else the geometry's. The running maximum is kept as a value beside its index, so the compiler
// can select rather than branch on data that decides each comparison at random.
template <std::int64_t kKernel>
void pool_planes(const float* in, float* best_values, std::int64_t* best_indices,
                 const Pool2dGeometry& g, std::int64_t begin, std::int64_t end) {
  const std::int64_t kernel_height = kKernel > 0 ? kKernel : g.kernel_height;
  const std::int64_t kernel_width = kKernel > 0 ? kKernel : g.kernel_width;
  for (std::int64_t p = begin; p < end; ++p) {
    const float* plane = in + p * g.height * g.width;
    for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
      for (std::int64_t ow = 0; ow < g.out_width; ++ow) {
        std::int64_t best = (oh * g.stride) * g.width + ow * g.stride;
        float best_value = plane[best];
        for (std::int64_t ki = 0; ki < kernel_height; ++ki) {
          for (std::int64_t kj = 0; kj < kernel_width; ++kj) {
            const std::int64_t at = (oh * g.stride + ki) * g.width + ow * g.stride + kj;
            const float value = plane[at];
            const bool better = value > best_value;
            best = better ? at : best;
            best_value = better ? value : best_value;
          }
        }
        const std::int64_t out_at = (p * g.out_height + oh) * g.out_width + ow;
        best_values[out_at] = best_value;
        best_indices[out_at] = best;
      }
    }
  }
}

void pool_planes_2x2_by_rows(const float* in, float* best_values, std::int64_t* best_indices,
                             const Pool2dGeometry& g, std::int64_t begin, std::int64_t end) {
  for (std::int64_t p = begin; p < end; ++p) {
    const float* plane = in + p * g.height * g.width;
    for (std::int64_t oh = 0; oh < g.out_height; ++oh) {
      const std::int64_t top_index = 2 * oh * g.width;
      const std::int64_t out_at = (p * g.out_height + oh) * g.out_width;
      max_pool_2x2_row(plane + top_index, g.width, top_index, g.out_width, best_values + out_at,
                       best_indices + out_at);
    }
  }
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dGeometry& g) {
  require_dtype(x, DType::kFloat32, "max_pool2d");
  const Tensor input = dense(x);
  const Shape shape{g.batch, g.channels, g.out_height, g.out_width};
  Tensor values = empty(shape, {.device = x.device()});
  Tensor indices = empty(shape, {.dtype = DType::kInt64, .device = x.device()});
  float* best_values = values.data<float>();
  std::int64_t* best_indices = indices.data<std::int64_t>();
  const float* in = input.data<float>();
  const bool two_by_two = g.kernel_height == 2 && g.kernel_width == 2;
  const bool vector_rows = two_by_two && g.stride == 2 && max_pool_2x2_available();
  parallel_for(g.batch * g.channels, planes_per_range(g),
               [&](std::int64_t begin, std::int64_t end) {
                 if (vector_rows) {
                   pool_planes_2x2_by_rows(in, best_values, best_indices, g, begin, end);
                 } else if (two_by_two) {
                   pool_planes<2>(in, best_values, best_indices, g, begin, end);
                 } else {
                   pool_planes<0>(in, best_values, best_indices, g, begin, end);
                 }
               });
  return {values, indices};
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, const Pool2dGeometry& g) {
  require_dtype(grad, DType::kFloat32, "max_pool2d_backward");
  require_dtype(indices, DType::kInt64, "max_pool2d_backward");
  const Tensor incoming = dense(grad);
  const Tensor positions = dense(indices);
  Tensor out = empty({g.batch, g.channels, g.height, g.width}, {.device = grad.device()});
  float* result = out.data<float>();
  const float* g_in = incoming.data<float>();
  const std::int64_t* where = positions.data<std::int64_t>();
  const std::int64_t outputs_per_plane = g.out_height * g.out_width;
  parallel_for(g.batch * g.channels, planes_per_range(g),
               [&](std::int64_t begin, std::int64_t end) {
                 for (std::int64_t p = begin; p < end; ++p) {
                   // Each plane is zeroed just before its gradients land in it, while it is in
                   // the cache, rather than the whole output in a pass of its own first.
                   float* plane = result + p * g.height * g.width;
                   std::fill(plane, plane + g.height * g.width, 0.0f);
                   for (std::int64_t i = 0; i < outputs_per_plane; ++i) {
                     const std::int64_t out_at = p * outputs_per_plane + i;
                     plane[where[out_at]] += g_in[out_at];
                   }
                 }
               });
  return out;
}

}  // namespace tscope::engine::cpu
