// The fused linear + bias + activation op: on the CPU it gives exactly what linear followed by
// relu or gelu gives (values and gradients, bit for bit); on CUDA, through cuBLASLt epilogues, it
// matches the CPU on fresh random inputs. The CUDA tests skip, with the reason, where no CUDA
// device answers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cuda_comparison.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::testing {
namespace {

Tensor unfused(const Tensor& x, const Tensor& weight, const Tensor& bias,
               FusedActivation activation) {
  const Tensor pre_activation = linear(x, weight, bias);
  return activation == FusedActivation::kRelu ? relu(pre_activation) : gelu(pre_activation);
}

struct Leaves {
  Tensor x;
  Tensor weight;
  Tensor bias;
};

class FusedLinear : public ::testing::TestWithParam<FusedActivation> {
 protected:
  Tensor random(const Shape& shape) { return randn(shape, generator_); }

  // Fresh leaves on `device` holding the values of `source` (random when undefined).
  Leaves leaves_like(const Leaves& source, Device device) {
    auto leaf = [&](const Tensor& values) {
      return values.to(device).detach().set_requires_grad(true);
    };
    return {leaf(source.x), leaf(source.weight), leaf(source.bias)};
  }

  Leaves random_leaves(const Shape& x_shape, std::int64_t out_features) {
    return {random(x_shape), random({out_features, x_shape.back()}), random({out_features})};
  }

  Generator generator_{std::random_device{}()};
};

// The output and the x, weight and bias gradients of the fused op and of linear then the
// activation, from the same random values and the same random weighting of the outputs.
struct FusedAndUnfused {
  std::vector<Tensor> fused;
  std::vector<Tensor> unfused;
};

FusedAndUnfused run_both(const Leaves& values, const Tensor& loss_weights,
                         FusedActivation activation) {
  auto leaf = [](const Tensor& v) { return v.detach().set_requires_grad(true); };
  const Leaves fused{leaf(values.x), leaf(values.weight), leaf(values.bias)};
  const Leaves reference{leaf(values.x), leaf(values.weight), leaf(values.bias)};
  const Tensor fused_out = linear_activation(fused.x, fused.weight, fused.bias, activation);
  const Tensor reference_out = unfused(reference.x, reference.weight, reference.bias, activation);
  sum(mul(fused_out, loss_weights)).backward();
  sum(mul(reference_out, loss_weights)).backward();
  return {{fused_out, fused.x.grad(), fused.weight.grad(), fused.bias.grad()},
          {reference_out, reference.x.grad(), reference.weight.grad(), reference.bias.grad()}};
}

TEST_P(FusedLinear, CpuValuesAndGradientsAreThoseOfLinearThenActivationBitForBit) {
  const Leaves values = random_leaves({40, 24}, 17);
  const FusedAndUnfused results = run_both(values, random({40, 17}), GetParam());
  for (std::size_t i = 0; i < results.fused.size(); ++i) {
    EXPECT_EQ(results.fused[i].shape(), results.unfused[i].shape()) << "result " << i;
    EXPECT_EQ(results.fused[i].to_vector<float>(), results.unfused[i].to_vector<float>())
        << "result " << i;
  }
}

// linear runs one GEMM per leading index; the fused op folds the leading dims into the rows of
// one GEMM, which changes only the rounding.
TEST_P(FusedLinear, CpuLeadingDimsFoldIntoRowsWithinFp32Rounding) {
  const Leaves values = random_leaves({3, 5, 24}, 17);
  const FusedAndUnfused results = run_both(values, random({3, 5, 17}), GetParam());
  for (std::size_t i = 0; i < results.fused.size(); ++i) {
    EXPECT_EQ(results.fused[i].shape(), results.unfused[i].shape()) << "result " << i;
    EXPECT_LT(relative_error(results.unfused[i], results.fused[i]), 1e-5) << "result " << i;
  }
}

TEST_P(FusedLinear, CudaValuesAndGradientsMatchTheCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
  // Widths that are and are not multiples of GELU's auxiliary alignment (8).
  for (const auto& [x_shape, out_features] :
       std::vector<std::pair<Shape, std::int64_t>>{{{64, 128}, 256}, {{2, 9, 33}, 13}}) {
    const Leaves values = random_leaves(x_shape, out_features);
    const Leaves on_cpu = leaves_like(values, Device::cpu());
    const Leaves on_gpu = leaves_like(values, kCuda);
    const Tensor expected = linear_activation(on_cpu.x, on_cpu.weight, on_cpu.bias, GetParam());
    const Tensor actual = linear_activation(on_gpu.x, on_gpu.weight, on_gpu.bias, GetParam());
    EXPECT_EQ(actual.device(), kCuda);
    EXPECT_LT(relative_error(expected, actual), kFp32Tolerance) << shape_to_string(x_shape);
    const Tensor loss_weights = random(expected.shape());
    sum(mul(expected, loss_weights)).backward();
    sum(mul(actual, loss_weights.to(kCuda))).backward();
    EXPECT_LT(relative_error(on_cpu.x.grad(), on_gpu.x.grad()), kFp32Tolerance);
    EXPECT_LT(relative_error(on_cpu.weight.grad(), on_gpu.weight.grad()), kFp32Tolerance);
    EXPECT_LT(relative_error(on_cpu.bias.grad(), on_gpu.bias.grad()), kFp32Tolerance);
  }
}

TEST_P(FusedLinear, CudaTf32StaysWithinItsTolerance) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
  const Leaves values = random_leaves({256, 512}, 384);
  set_cuda_allow_tf32(true);
  const Tensor actual = linear_activation(values.x.to(kCuda), values.weight.to(kCuda),
                                          values.bias.to(kCuda), GetParam());
  set_cuda_allow_tf32(false);
  EXPECT_LT(
      relative_error(linear_activation(values.x, values.weight, values.bias, GetParam()), actual),
      kTf32Tolerance);
}

INSTANTIATE_TEST_SUITE_P(Activations, FusedLinear,
                         ::testing::Values(FusedActivation::kRelu, FusedActivation::kGelu),
                         [](const ::testing::TestParamInfo<FusedActivation>& activation) {
                           return activation.param == FusedActivation::kRelu ? "Relu" : "Gelu";
                         });

}  // namespace
}  // namespace tscope::engine::testing
