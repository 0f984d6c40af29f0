// conv2d through cuDNN and max pooling on CUDA against the CPU's im2col + GEMM and pooling
// kernels, on fresh random inputs, values and gradients. Skipped, with the reason, where no CUDA
// device answers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "cuda_comparison.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::testing {
namespace {

// Same-size padding, strided, unpadded, a 1x1 projection, a wide kernel and a single image.
const std::vector<ConvCase> kCases = {
    {{2, 3, 12, 12}, {4, 3, 3, 3}, {.stride = 1, .padding = 1}},
    {{3, 4, 15, 11}, {6, 4, 3, 3}, {.stride = 2, .padding = 1}},
    {{2, 5, 9, 9}, {3, 5, 5, 5}, {.stride = 1, .padding = 0}},
    {{4, 8, 7, 7}, {16, 8, 1, 1}, {.stride = 1, .padding = 0}},
    {{1, 2, 20, 20}, {3, 2, 7, 7}, {.stride = 3, .padding = 2}},
};

// The definition, loop by loop, to check the CPU kernels the CUDA ones are compared against.
Tensor direct_convolution(const Tensor& input, const Tensor& weight, Conv2dOptions options) {
  const Shape& in = input.shape();
  const Shape& w = weight.shape();
  const std::int64_t out_height = (in[2] + 2 * options.padding - w[2]) / options.stride + 1;
  const std::int64_t out_width = (in[3] + 2 * options.padding - w[3]) / options.stride + 1;
  const std::vector<float> x = input.to_vector<float>();
  const std::vector<float> k = weight.to_vector<float>();
  std::vector<float> out;
  for (std::int64_t n = 0; n < in[0]; ++n) {
    for (std::int64_t o = 0; o < w[0]; ++o) {
      for (std::int64_t oy = 0; oy < out_height; ++oy) {
        for (std::int64_t ox = 0; ox < out_width; ++ox) {
          double total = 0.0;
          for (std::int64_t c = 0; c < in[1]; ++c) {
            for (std::int64_t ky = 0; ky < w[2]; ++ky) {
              for (std::int64_t kx = 0; kx < w[3]; ++kx) {
                const std::int64_t y = oy * options.stride - options.padding + ky;
                const std::int64_t xx = ox * options.stride - options.padding + kx;
                if (y < 0 || y >= in[2] || xx < 0 || xx >= in[3]) continue;
                total +=
                    static_cast<double>(
                        x[static_cast<std::size_t>(((n * in[1] + c) * in[2] + y) * in[3] + xx)]) *
                    k[static_cast<std::size_t>(((o * w[1] + c) * w[2] + ky) * w[3] + kx)];
              }
            }
          }
          out.push_back(static_cast<float>(total));
        }
      }
    }
  }
  return from_vector(out, {in[0], w[0], out_height, out_width});
}

TEST(CpuConvolution, DispatchedKernelMatchesTheDefinitionForEveryGeometry) {
  Generator generator(std::random_device{}());
  for (const ConvCase& c : kCases) {
    const Tensor input = randn(c.input, generator);
    const Tensor weight = randn(c.weight, generator);
    EXPECT_LT(relative_error(direct_convolution(input, weight, c.options),
                             conv2d(input, weight, std::nullopt, c.options)),
              kFp32Tolerance)
        << shape_to_string(c.input) << " * " << shape_to_string(c.weight);
  }
}

using CudaConvolution = CudaComparisonTest;

TEST_F(CudaConvolution, ForwardMatchesTheCpuForEveryGeometry) {
  for (const ConvCase& c : kCases) {
    const Tensor input = random(c.input);
    const Tensor weight = random(c.weight);
    const Tensor bias = random({c.weight[0]});
    const Tensor expected = conv2d(input, weight, bias, c.options);
    const Tensor actual = conv2d(input.to(kCuda), weight.to(kCuda), bias.to(kCuda), c.options);
    EXPECT_EQ(actual.device(), kCuda);
    EXPECT_EQ(actual.shape(), expected.shape());
    EXPECT_LT(relative_error(expected, actual), kFp32Tolerance)
        << shape_to_string(c.input) << " * " << shape_to_string(c.weight);
  }
}

TEST_F(CudaConvolution, InputWeightAndBiasGradientsMatchTheCpuForEveryGeometry) {
  for (const ConvCase& c : kCases) {
    const Tensor input = random(c.input).set_requires_grad(true);
    const Tensor weight = random(c.weight).set_requires_grad(true);
    const Tensor bias = random({c.weight[0]}).set_requires_grad(true);
    const Tensor input_gpu = input.to(kCuda).detach().set_requires_grad(true);
    const Tensor weight_gpu = weight.to(kCuda).detach().set_requires_grad(true);
    const Tensor bias_gpu = bias.to(kCuda).detach().set_requires_grad(true);
    // A random weighting of the outputs, so every output's gradient differs.
    const Tensor expected = conv2d(input, weight, bias, c.options);
    const Tensor loss_weights = random(expected.shape());
    sum(mul(expected, loss_weights)).backward();
    sum(mul(conv2d(input_gpu, weight_gpu, bias_gpu, c.options), loss_weights.to(kCuda))).backward();
    EXPECT_LT(relative_error(input.grad(), input_gpu.grad()), kFp32Tolerance)
        << shape_to_string(c.input);
    EXPECT_LT(relative_error(weight.grad(), weight_gpu.grad()), kFp32Tolerance)
        << shape_to_string(c.weight);
    EXPECT_LT(relative_error(bias.grad(), bias_gpu.grad()), kFp32Tolerance);
  }
}

TEST_F(CudaConvolution, MeasuredAlgorithmSearchMatchesTheCpuWithGradients) {
  // The search runs each direction on the op's own buffers; the results must still be the op's.
  set_cudnn_benchmark(true);
  for (const ConvCase& c : kCases) {
    const Tensor input = random(c.input).set_requires_grad(true);
    const Tensor weight = random(c.weight).set_requires_grad(true);
    const Tensor input_gpu = input.to(kCuda).detach().set_requires_grad(true);
    const Tensor weight_gpu = weight.to(kCuda).detach().set_requires_grad(true);
    const Tensor expected = conv2d(input, weight, std::nullopt, c.options);
    const Tensor actual = conv2d(input_gpu, weight_gpu, std::nullopt, c.options);
    EXPECT_LT(relative_error(expected, actual), kFp32Tolerance) << shape_to_string(c.input);
    const Tensor loss_weights = random(expected.shape());
    sum(mul(expected, loss_weights)).backward();
    sum(mul(actual, loss_weights.to(kCuda))).backward();
    EXPECT_LT(relative_error(input.grad(), input_gpu.grad()), kFp32Tolerance)
        << shape_to_string(c.input);
    EXPECT_LT(relative_error(weight.grad(), weight_gpu.grad()), kFp32Tolerance)
        << shape_to_string(c.weight);
  }
  set_cudnn_benchmark(false);
}

TEST_F(CudaConvolution, NonContiguousInputsMatchTheCpu) {
  const Tensor input = random({2, 10, 10, 3}).permute({0, 3, 1, 2});
  const Tensor weight = random({4, 3, 3, 3});
  EXPECT_LT(relative_error(conv2d(input, weight, std::nullopt, {.padding = 1}),
                           conv2d(input.to(kCuda), weight.to(kCuda), std::nullopt, {.padding = 1})),
            kFp32Tolerance);
}

TEST_F(CudaConvolution, Tf32ConvolutionStaysWithinItsTolerance) {
  const Tensor input = random({8, 16, 16, 16});
  const Tensor weight = random({32, 16, 3, 3});
  set_cuda_allow_tf32(true);
  const Tensor actual = conv2d(input.to(kCuda), weight.to(kCuda), std::nullopt, {.padding = 1});
  set_cuda_allow_tf32(false);
  EXPECT_LT(relative_error(conv2d(input, weight, std::nullopt, {.padding = 1}), actual),
            kTf32Tolerance);
}

TEST_F(CudaConvolution, OverlappingMaxPoolWindowsMatchTheCpuWithGradients) {
  const Tensor input = random({2, 3, 11, 11}).set_requires_grad(true);
  const Tensor input_gpu = input.to(kCuda).detach().set_requires_grad(true);
  const Tensor expected = max_pool2d(input, 3, 2);
  const Tensor actual = max_pool2d(input_gpu, 3, 2);
  EXPECT_LT(relative_error(expected, actual), kFp32Tolerance);
  const Tensor loss_weights = random(expected.shape());
  sum(mul(expected, loss_weights)).backward();
  sum(mul(actual, loss_weights.to(kCuda))).backward();
  EXPECT_LT(relative_error(input.grad(), input_gpu.grad()), kFp32Tolerance);
}

}  // namespace
}  // namespace tscope::engine::testing
