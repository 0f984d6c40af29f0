// CPU kernels that write into an existing tensor: copy (with broadcast and dtype kept), fill,
// scaled accumulation, scaling.

#include <algorithm>
#include <cstring>

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

template <typename T>
void copy_elements(Tensor& dst, const Tensor& src) {
  T* out = dst.data<T>();
  const T* in = src.data<T>();
  if (dst.shape() == src.shape() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.numel() > 0) std::memmove(out, in, static_cast<std::size_t>(dst.numel()) * sizeof(T));
    return;
  }
  const Shape src_strides = broadcast_strides(src, dst.shape());
  for_each_strided<2>(dst.shape(), {dst.strides().data(), src_strides.data()},
                      [&](const std::array<std::int64_t, 2>& at) { out[at[0]] = in[at[1]]; });
}

template <typename T>
void fill_elements(Tensor& dst, T value) {
  T* out = dst.data<T>();
  if (dst.is_contiguous()) {
    std::fill(out, out + dst.numel(), value);
    return;
  }
  for_each_strided<1>(dst.shape(), {dst.strides().data()},
                      [&](const std::array<std::int64_t, 1>& at) { out[at[0]] = value; });
}

}  // namespace

void copy(Tensor& dst, const Tensor& src) {
  check_copy_operands(dst, src);
  if (dst.dtype() == DType::kFloat32) {
    copy_elements<float>(dst, src);
  } else {
    copy_elements<std::int64_t>(dst, src);
  }
}

void fill(Tensor& dst, double value) {
  if (dst.dtype() == DType::kFloat32) {
    fill_elements(dst, static_cast<float>(value));
  } else {
    fill_elements(dst, static_cast<std::int64_t>(value));
  }
}

void add_inplace(Tensor& dst, const Tensor& src, double alpha) {
  check_add_inplace_operands(dst, src);
  float* out = dst.data<float>();
  const float* in = src.data<float>();
  const auto scale = static_cast<float>(alpha);
  if (dst.shape() == src.shape() && dst.is_contiguous() && src.is_contiguous()) {
    const std::int64_t count = dst.numel();
    for (std::int64_t i = 0; i < count; ++i)
      out[i] += scale * in[i];
    return;
  }
  const Shape src_strides = broadcast_strides(src, dst.shape());
  for_each_strided<2>(
      dst.shape(), {dst.strides().data(), src_strides.data()},
      [&](const std::array<std::int64_t, 2>& at) { out[at[0]] += scale * in[at[1]]; });
}

void mul_scalar_inplace(Tensor& dst, double factor) {
  require_dtype(dst, DType::kFloat32, "mul_");
  float* out = dst.data<float>();
  const auto scale = static_cast<float>(factor);
  for_each_strided<1>(dst.shape(), {dst.strides().data()},
                      [&](const std::array<std::int64_t, 1>& at) { out[at[0]] *= scale; });
}

Tensor dense(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor copy_of_x = empty(x.shape(), {.dtype = x.dtype(), .device = x.device()});
  copy(copy_of_x, x);
  return copy_of_x;
}

}  // namespace tscope::engine::cpu
