// The fused convolution + bias + ReLU op: on the CPU it gives exactly what conv2d with its bias
// followed by relu gives (values and the input, weight and bias gradients, bit for bit); on CUDA,
// through cuDNN's fused convolution-bias-activation, it matches the CPU on fresh random inputs.
// The CUDA tests skip, with the reason, where no CUDA device answers.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda_comparison.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/nn/conv2d_relu.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::testing {
namespace {

// The example CNN's two layers (batch 4), a strided one and a 1x1 projection.
const std::vector<ConvCase> kCases = {
    {{4, 1, 28, 28}, {16, 1, 5, 5}, {.stride = 1, .padding = 2}},
    {{4, 16, 14, 14}, {32, 16, 5, 5}, {.stride = 1, .padding = 0}},
    {{3, 4, 15, 11}, {6, 4, 3, 3}, {.stride = 2, .padding = 1}},
    {{2, 8, 7, 7}, {16, 8, 1, 1}, {.stride = 1, .padding = 0}},
};

struct Leaves {
  Tensor input;
  Tensor weight;
  Tensor bias;
};

Leaves leaves_on(const Leaves& values, Device device) {
  auto leaf = [&](const Tensor& v) { return v.to(device).detach().set_requires_grad(true); };
  return {leaf(values.input), leaf(values.weight), leaf(values.bias)};
}

// The output and the input, weight and bias gradients under a random weighting of the outputs.
std::vector<Tensor> forward_and_gradients(const Leaves& leaves, const Tensor& output,
                                          const Tensor& loss_weights) {
  sum(mul(output, loss_weights.to(output.device()))).backward();
  return {output, leaves.input.grad(), leaves.weight.grad(), leaves.bias.grad()};
}

class FusedConvolution : public ::testing::Test {
 protected:
  Leaves random_leaves(const ConvCase& c) {
    return {randn(c.input, generator_), randn(c.weight, generator_),
            randn({c.weight[0]}, generator_)};
  }
  Tensor random(const Shape& shape) { return randn(shape, generator_); }

  Generator generator_{std::random_device{}()};
};

TEST_F(FusedConvolution, CpuValuesAndGradientsAreThoseOfConvThenReluBitForBit) {
  for (const ConvCase& c : kCases) {
    const Leaves values = random_leaves(c);
    const Leaves fused = leaves_on(values, Device::cpu());
    const Leaves unfused = leaves_on(values, Device::cpu());
    const Tensor fused_out = conv2d_bias_relu(fused.input, fused.weight, fused.bias, c.options);
    const Tensor unfused_out = relu(conv2d(unfused.input, unfused.weight, unfused.bias, c.options));
    const Tensor loss_weights = random(unfused_out.shape());
    const std::vector<Tensor> actual = forward_and_gradients(fused, fused_out, loss_weights);
    const std::vector<Tensor> expected = forward_and_gradients(unfused, unfused_out, loss_weights);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(actual[i].shape(), expected[i].shape()) << "result " << i;
      EXPECT_EQ(actual[i].to_vector<float>(), expected[i].to_vector<float>())
          << "result " << i << " of " << shape_to_string(c.input) << " * "
          << shape_to_string(c.weight);
    }
  }
}

TEST_F(FusedConvolution, ModuleGivesConv2dThenReluFromTheSameSeed) {
  Generator fused_init(11);
  Generator unfused_init(11);
  nn::Conv2dRelu fused(3, 5, 3, fused_init, {.stride = 1, .padding = 1});
  nn::Conv2d unfused(3, 5, 3, unfused_init, {.stride = 1, .padding = 1});
  const Tensor input = random({2, 3, 8, 8});
  EXPECT_EQ(fused.forward(input).to_vector<float>(),
            relu(unfused.forward(input)).to_vector<float>());
  EXPECT_EQ(fused.parameters().size(), unfused.parameters().size());
}

TEST_F(FusedConvolution, RejectsABiasThatIsNotOnePerOutputChannel) {
  EXPECT_THROW(conv2d_bias_relu(zeros({1, 2, 5, 5}), zeros({3, 2, 3, 3}), zeros({2})), EngineError);
}

TEST_F(FusedConvolution, CudaValuesAndGradientsMatchTheCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
  for (const ConvCase& c : kCases) {
    const Leaves values = random_leaves(c);
    const Leaves on_cpu = leaves_on(values, Device::cpu());
    const Leaves on_gpu = leaves_on(values, kCuda);
    const Tensor cpu_out = conv2d_bias_relu(on_cpu.input, on_cpu.weight, on_cpu.bias, c.options);
    const Tensor gpu_out = conv2d_bias_relu(on_gpu.input, on_gpu.weight, on_gpu.bias, c.options);
    EXPECT_EQ(gpu_out.device(), kCuda);
    const Tensor loss_weights = random(cpu_out.shape());
    const std::vector<Tensor> expected = forward_and_gradients(on_cpu, cpu_out, loss_weights);
    const std::vector<Tensor> actual = forward_and_gradients(on_gpu, gpu_out, loss_weights);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(actual[i].shape(), expected[i].shape()) << "result " << i;
      EXPECT_LT(relative_error(expected[i], actual[i]), kFp32Tolerance)
          << "result " << i << " of " << shape_to_string(c.input) << " * "
          << shape_to_string(c.weight);
    }
  }
}

}  // namespace
}  // namespace tscope::engine::testing
