// CPU kernels that fill a tensor from a seeded generator, element by element in row-major order
// so a seed gives the same values whatever the tensor's strides.

#include <random>

#include "cpu/cpu_kernels.h"
#include "cpu/mask_draw.h"
#include "cpu/strided_loop.h"

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
  std::uniform_real_distribution<float> distribution(static_cast<float>(low),
                                                     static_cast<float>(high));
  fill_random(dst, "uniform_", [&] { return distribution(generator.engine()); });
}

void normal(Tensor& dst, double mean, double stddev, Generator& generator) {
  std::normal_distribution<float> distribution(static_cast<float>(mean),
                                               static_cast<float>(stddev));
  fill_random(dst, "normal_", [&] { return distribution(generator.engine()); });
}

void bernoulli_mask(Tensor& dst, double keep_probability, double scale, Generator& generator) {
  fill_random(dst, "bernoulli_mask_", MaskDraw(keep_probability, scale, generator));
}

}  // namespace tscope::engine::cpu
