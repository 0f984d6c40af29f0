// CPU kernels that fill a tensor from a seeded generator, element by element in row-major order
// so a seed gives the same values whatever the tensor's strides. Element i takes draw i of the
// reserved stream (draws 2i and 2i + 1 for a normal), as the CUDA kernels do.

#include "cpu/cpu_kernels.h"
#include "cpu/mask_draw.h"
#include "cpu/strided_loop.h"
#include "kernel_operands.h"
#include "philox.h"

namespace tscope::engine::cpu {
namespace {

template <typename Draw>
void fill_random(Tensor& dst, const char* op_name, Draw draw) {
  require_dtype(dst, DType::kFloat32, op_name);
  float* out = dst.data<float>();
  for_each_strided<1>(dst.shape(), {dst.strides().data()},
                      [&](const std::array<std::int64_t, 1>& at) { out[at[0]] = draw(); });
}

}  // namespace

void uniform(Tensor& dst, double low, double high, Generator& generator) {
  PhiloxSequence draws(generator.reserve(static_cast<std::uint64_t>(dst.numel())));
  fill_random(dst, "uniform_",
              [&, low_f = static_cast<float>(low), high_f = static_cast<float>(high)] {
                return philox_uniform(draws.next(), low_f, high_f);
              });
}

void normal(Tensor& dst, double mean, double stddev, Generator& generator) {
  PhiloxSequence draws(generator.reserve(2 * static_cast<std::uint64_t>(dst.numel())));
  fill_random(dst, "normal_",
              [&, mean_f = static_cast<float>(mean), stddev_f = static_cast<float>(stddev)] {
                const std::uint32_t first = draws.next();
                return philox_normal(first, draws.next(), mean_f, stddev_f);
              });
}

void bernoulli_mask(Tensor& dst, double keep_probability, double scale, Generator& generator) {
  const PhiloxStream stream = generator.reserve(static_cast<std::uint64_t>(dst.numel()));
  if (dst.is_contiguous()) {
    require_dtype(dst, DType::kFloat32, "bernoulli_mask_");
    draw_mask(keep_probability, scale, stream, dst.data<float>(), dst.numel());
    return;
  }
  fill_random(dst, "bernoulli_mask_", MaskDraw(keep_probability, scale, stream));
}

}  // namespace tscope::engine::cpu
