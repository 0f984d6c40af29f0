// Every CUDA kernel against its CPU reference on fresh random inputs, forward and backward: the
// same op runs on both devices and the results agree to fp32 rounding (TF32 to 1e-2). Skipped,
// with the reason, where no CUDA device answers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda_comparison.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/nn/linear.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/engine/optim/sgd.h"
#include "tscope/engine/transfer.h"

namespace tscope::engine::testing {
namespace {

class CudaKernels : public CudaComparisonTest {
 protected:
  void expect_same_on_both(const std::function<Tensor(const Tensor&)>& op, const Tensor& input,
                           double tolerance = kFp32Tolerance) {
    const Tensor expected = op(input);
    const Tensor actual = op(input.to(kCuda));
    EXPECT_EQ(actual.device(), kCuda);
    EXPECT_EQ(actual.shape(), expected.shape());
    EXPECT_LT(relative_error(expected, actual), tolerance);
  }
};

TEST_F(CudaKernels, UnaryOpsMatchTheCpu) {
  const Tensor x = random({7, 33});
  const Tensor positive = add(mul(x, x), 0.1);
  expect_same_on_both([](const Tensor& t) { return neg(t); }, x);
  expect_same_on_both([](const Tensor& t) { return exp(t); }, x);
  expect_same_on_both([](const Tensor& t) { return log(t); }, positive);
  expect_same_on_both([](const Tensor& t) { return sqrt(t); }, positive);
  expect_same_on_both([](const Tensor& t) { return relu(t); }, x);
  expect_same_on_both([](const Tensor& t) { return gelu(t); }, x);
  expect_same_on_both([](const Tensor& t) { return sigmoid(t); }, x);
  expect_same_on_both([](const Tensor& t) { return tanh(t); }, x);
  expect_same_on_both([](const Tensor& t) { return pow(t, 3.0); }, x);
  expect_same_on_both([](const Tensor& t) { return add(t, 2.5); }, x);
  expect_same_on_both([](const Tensor& t) { return mul(t, -1.5); }, x);
}

TEST_F(CudaKernels, LargeDenseTensorsTakeTheVectorPathAndItsTail) {
  // 2^20 + 3 elements: float4 loads for the body, scalar loads for the last three.
  const Tensor a = random({(1 << 20) + 3});
  const Tensor b = random({(1 << 20) + 3});
  const Tensor expected = add(a, b);
  EXPECT_LT(relative_error(expected, add(a.to(kCuda), b.to(kCuda))), kFp32Tolerance);
  expect_same_on_both([](const Tensor& t) { return gelu(t); }, a);
}

TEST_F(CudaKernels, MisalignedViewsTakeTheScalarPath) {
  const Tensor a = random({1001});
  const Tensor b = random({1001});
  const Tensor expected = mul(a.narrow(0, 1, 1000), b.narrow(0, 1, 1000));
  const Tensor actual = mul(a.to(kCuda).narrow(0, 1, 1000), b.to(kCuda).narrow(0, 1, 1000));
  EXPECT_LT(relative_error(expected, actual), kFp32Tolerance);
}

TEST_F(CudaKernels, BinaryOpsBroadcastLikeTheCpu) {
  const Tensor a = random({4, 1, 5});
  const Tensor b = random({3, 1});
  const Tensor expected_add = add(a, b);
  const Tensor expected_div = div(a, add(mul(b, b), 1.0));
  const Tensor a_cuda = a.to(kCuda);
  const Tensor b_cuda = b.to(kCuda);
  EXPECT_LT(relative_error(expected_add, add(a_cuda, b_cuda)), kFp32Tolerance);
  EXPECT_LT(relative_error(expected_div, div(a_cuda, add(mul(b_cuda, b_cuda), 1.0))),
            kFp32Tolerance);
  EXPECT_LT(relative_error(sub(a, b), sub(a_cuda, b_cuda)), kFp32Tolerance);
}

TEST_F(CudaKernels, TransposedViewsMatchTheCpu) {
  const Tensor x = random({6, 9});
  const Tensor y = random({9, 6});
  EXPECT_LT(
      relative_error(add(x.transpose(0, 1), y), add(x.to(kCuda).transpose(0, 1), y.to(kCuda))),
      kFp32Tolerance);
  expect_same_on_both([](const Tensor& t) { return t.transpose(0, 1).contiguous(); }, x);
}

TEST_F(CudaKernels, SumAndMeanOverDimsMatchTheCpu) {
  const Tensor x = random({5, 6, 7});
  expect_same_on_both([](const Tensor& t) { return sum(t); }, x);
  expect_same_on_both([](const Tensor& t) { return sum(t, {1}); }, x);
  expect_same_on_both([](const Tensor& t) { return sum(t, {0, 2}, true); }, x);
  expect_same_on_both([](const Tensor& t) { return mean(t, {2}); }, x);
}

TEST_F(CudaKernels, MaxAlongADimGivesTheCpuValuesAndIndices) {
  const Tensor x = random({8, 300});
  for (const std::int64_t dim : {0, 1}) {
    const MaxResult expected = max(x, dim);
    const MaxResult actual = max(x.to(kCuda), dim);
    EXPECT_LT(relative_error(expected.values, actual.values), kFp32Tolerance);
    EXPECT_EQ(expected.indices.to_vector<std::int64_t>(),
              actual.indices.to(Device::cpu()).to_vector<std::int64_t>());
  }
}

TEST_F(CudaKernels, SoftmaxAndLogSoftmaxMatchTheCpu) {
  const Tensor x = mul(random({16, 1000}), 5.0);
  expect_same_on_both([](const Tensor& t) { return softmax(t, -1); }, x);
  expect_same_on_both([](const Tensor& t) { return log_softmax(t, -1); }, x);
  expect_same_on_both([](const Tensor& t) { return softmax(t, 0); }, x);
}

TEST_F(CudaKernels, MatmulMatchesTheCpuIncludingTransposedOperands) {
  const Tensor a = random({65, 129});
  const Tensor b = random({129, 33});
  EXPECT_LT(relative_error(matmul(a, b), matmul(a.to(kCuda), b.to(kCuda))), kFp32Tolerance);
  const Tensor bt = random({33, 129});
  EXPECT_LT(relative_error(matmul(a, bt.transpose(0, 1)),
                           matmul(a.to(kCuda), bt.to(kCuda).transpose(0, 1))),
            kFp32Tolerance);
  const Tensor batched = random({3, 17, 129});
  EXPECT_LT(relative_error(matmul(batched, b), matmul(batched.to(kCuda), b.to(kCuda))),
            kFp32Tolerance);
}

TEST_F(CudaKernels, Tf32MatmulStaysWithinItsTolerance) {
  const Tensor a = random({256, 512});
  const Tensor b = random({512, 128});
  set_cuda_allow_tf32(true);
  const Tensor actual = matmul(a.to(kCuda), b.to(kCuda));
  set_cuda_allow_tf32(false);
  EXPECT_LT(relative_error(matmul(a, b), actual), kTf32Tolerance);
}

TEST_F(CudaKernels, ConvolutionAndPoolingMatchTheCpu) {
  const Tensor input = random({2, 3, 12, 12});
  const Tensor weight = random({4, 3, 3, 3});
  const Tensor bias = random({4});
  const Tensor expected = max_pool2d(conv2d(input, weight, bias, {.stride = 1, .padding = 1}), 2);
  const Tensor actual = max_pool2d(
      conv2d(input.to(kCuda), weight.to(kCuda), bias.to(kCuda), {.stride = 1, .padding = 1}), 2);
  EXPECT_LT(relative_error(expected, actual), kFp32Tolerance);
}

TEST_F(CudaKernels, LayerNormMatchesTheCpu) {
  const Tensor x = random({10, 64});
  const Tensor weight = random({64});
  const Tensor bias = random({64});
  EXPECT_LT(relative_error(layer_norm(x, {64}, weight, bias),
                           layer_norm(x.to(kCuda), {64}, weight.to(kCuda), bias.to(kCuda))),
            kFp32Tolerance);
}

using LeafFn = std::function<Tensor(const std::vector<Tensor>&)>;

// The output of `op` over copies of `host_leaves` on `device`, then the gradient of its sum
// weighted by `host_weights` with respect to each leaf.
std::vector<Tensor> output_and_gradients(const LeafFn& op, const std::vector<Tensor>& host_leaves,
                                         const Tensor& host_weights, Device device) {
  std::vector<Tensor> leaves;
  leaves.reserve(host_leaves.size());
  for (const Tensor& leaf : host_leaves)
    leaves.push_back(leaf.to(device).detach().set_requires_grad(true));
  const Tensor out = op(leaves);
  sum(mul(out, host_weights.to(device))).backward();
  std::vector<Tensor> results{out};
  for (const Tensor& leaf : leaves)
    results.push_back(leaf.grad());
  return results;
}

void expect_output_and_gradients_match(const LeafFn& op, const std::vector<Tensor>& host_leaves,
                                       const Tensor& host_weights) {
  const std::vector<Tensor> expected =
      output_and_gradients(op, host_leaves, host_weights, Device::cpu());
  const std::vector<Tensor> actual = output_and_gradients(op, host_leaves, host_weights, kCuda);
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i == 0 ? "output" : "gradient of leaf " + std::to_string(i - 1));
    EXPECT_EQ(actual[i].device(), kCuda);
    EXPECT_EQ(actual[i].shape(), expected[i].shape());
    EXPECT_LT(relative_error(expected[i], actual[i]), kFp32Tolerance);
  }
}

TEST_F(CudaKernels, FusedLayerNormAndItsGradientsMatchTheCpu) {
  // Rows a warp takes (45 and 100 are not multiples of 32) and rows a block takes (4097); 37 rows
  // leave the last block of warp rows part-filled, 2000 rows sum the weight gradient in the
  // largest number of chunks.
  for (const Shape& shape :
       {Shape{37, 45}, Shape{37, 100}, Shape{2000, 45}, Shape{37, 1024}, Shape{5, 4097}}) {
    const std::int64_t rows = shape[0];
    const std::int64_t cols = shape[1];
    SCOPED_TRACE("rows " + std::to_string(rows) + ", cols " + std::to_string(cols));
    expect_output_and_gradients_match(
        [cols](const std::vector<Tensor>& leaves) {
          return layer_norm(leaves[0], {cols}, leaves[1], leaves[2]);
        },
        {random(shape), random({cols}), random({cols})}, random(shape));
  }
}

TEST_F(CudaKernels, FusedLayerNormMatchesTheCpuOverTwoDimsWithoutWeightOrBias) {
  expect_output_and_gradients_match(
      [](const std::vector<Tensor>& leaves) {
        return layer_norm(leaves[0], {3, 50}, std::nullopt, std::nullopt);
      },
      {random({6, 3, 50})}, random({6, 3, 50}));
}

TEST_F(CudaKernels, FusedCrossEntropyAndItsGradientMatchTheCpu) {
  for (const Shape& shape : {Shape{37, 10}, Shape{37, 45}, Shape{300, 100}, Shape{5, 4097}}) {
    const std::int64_t rows = shape[0];
    const std::int64_t classes = shape[1];
    SCOPED_TRACE("rows " + std::to_string(rows) + ", classes " + std::to_string(classes));
    std::vector<std::int64_t> labels;
    labels.reserve(static_cast<std::size_t>(rows));
    for (std::int64_t row = 0; row < rows; ++row)
      labels.push_back((row * 7 + 3) % classes);
    const Tensor targets = from_vector(labels, {rows});
    expect_output_and_gradients_match(
        [&targets](const std::vector<Tensor>& leaves) {
          return cross_entropy(leaves[0], targets.to(leaves[0].device()));
        },
        {mul(random(shape), 3.0)}, full({}, 0.5));
  }
}

TEST_F(CudaKernels, FusedCrossEntropyIsNaNForATargetOutsideTheClasses) {
  // A device cannot throw: the CPU raises EngineError, the device's loss and that row's gradient
  // are NaN.
  const Tensor logits = random({3, 4}).to(kCuda).detach().set_requires_grad(true);
  const Tensor targets = from_vector(std::vector<std::int64_t>{0, 4, 1}, {3}).to(kCuda);
  const Tensor loss = cross_entropy(logits, targets);
  EXPECT_TRUE(std::isnan(loss.to(Device::cpu()).item<float>()));
  loss.backward();
  const std::vector<float> grad = logits.grad().to(Device::cpu()).to_vector<float>();
  EXPECT_TRUE(std::isnan(grad[4]));
  EXPECT_FALSE(std::isnan(grad[0]));
}

TEST_F(CudaKernels, DropoutDrawsTheCpuMaskFromTheSameSeed) {
  const Tensor x = random({50, 50});
  Generator on_cpu(7);
  Generator on_gpu(7);
  EXPECT_LT(relative_error(dropout(x, 0.3, true, on_cpu), dropout(x.to(kCuda), 0.3, true, on_gpu)),
            kFp32Tolerance);
}

TEST_F(CudaKernels, FusedBiasGeluDropoutMatchesTheCpuFromOneSeed) {
  const Tensor x_cpu = random({16, 40}).set_requires_grad(true);
  const Tensor bias_cpu = random({40}).set_requires_grad(true);
  const Tensor x_gpu = x_cpu.to(kCuda).detach().set_requires_grad(true);
  const Tensor bias_gpu = bias_cpu.to(kCuda).detach().set_requires_grad(true);
  Generator on_cpu(11);
  Generator on_gpu(11);
  const Tensor expected = bias_gelu_dropout(x_cpu, bias_cpu, 0.2, true, on_cpu);
  const Tensor actual = bias_gelu_dropout(x_gpu, bias_gpu, 0.2, true, on_gpu);
  EXPECT_LT(relative_error(expected, actual), kFp32Tolerance);
  sum(mul(expected, expected)).backward();
  sum(mul(actual, actual)).backward();
  EXPECT_LT(relative_error(x_cpu.grad(), x_gpu.grad()), kFp32Tolerance);
  EXPECT_LT(relative_error(bias_cpu.grad(), bias_gpu.grad()), kFp32Tolerance);
}

// The gradients of every input of a network that uses each backward kernel.
std::vector<Tensor> network_gradients(const std::vector<Tensor>& leaves, const Tensor& targets) {
  const Tensor& images = leaves[0];
  const Tensor& kernel = leaves[1];
  const Tensor& weight = leaves[2];
  const Tensor& norm_weight = leaves[3];
  const Tensor features = max_pool2d(relu(conv2d(images, kernel, std::nullopt, {.padding = 1})), 2);
  const Tensor hidden = gelu(
      layer_norm(features.flatten(1), {features.flatten(1).size(1)}, norm_weight, std::nullopt));
  const Tensor logits = add(matmul(tanh(hidden), weight), sigmoid(sum(hidden, {1}, true)));
  const Tensor loss = add(cross_entropy(logits, targets), mean(softmax(logits, 1)));
  loss.backward();
  std::vector<Tensor> gradients;
  gradients.reserve(leaves.size());
  for (const Tensor& leaf : leaves)
    gradients.push_back(leaf.grad());
  return gradients;
}

TEST_F(CudaKernels, GradientsThroughEveryBackwardKernelMatchTheCpu) {
  std::vector<Tensor> on_cpu = {random({4, 2, 8, 8}), random({3, 2, 3, 3}), random({48, 5}),
                                random({48})};
  std::vector<Tensor> on_gpu;
  for (Tensor& leaf : on_cpu) {
    on_gpu.push_back(leaf.to(kCuda).detach().set_requires_grad(true));
    leaf.set_requires_grad(true);
  }
  const Tensor targets = from_vector(std::vector<std::int64_t>{0, 4, 2, 1}, {4});
  const std::vector<Tensor> expected = network_gradients(on_cpu, targets);
  const std::vector<Tensor> actual = network_gradients(on_gpu, targets.to(kCuda));
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].device(), kCuda) << "input " << i;
    EXPECT_LT(relative_error(expected[i], actual[i]), kFp32Tolerance) << "input " << i;
  }
}

TEST_F(CudaKernels, AdamStepsMatchTheCpu) {
  Generator cpu_init(3);
  Generator gpu_init(3);
  nn::Linear cpu_layer(20, 10, cpu_init);
  nn::Linear gpu_layer(20, 10, gpu_init);
  to_device(gpu_layer, kCuda);
  optim::Adam cpu_adam(cpu_layer.parameters(), {.learning_rate = 0.01});
  optim::Adam gpu_adam(gpu_layer.parameters(), {.learning_rate = 0.01});
  for (int step = 0; step < 3; ++step) {
    const Tensor input = random({8, 20});
    sum(mul(cpu_layer(input), cpu_layer(input))).backward();
    sum(mul(gpu_layer(input.to(kCuda)), gpu_layer(input.to(kCuda)))).backward();
    cpu_adam.step();
    gpu_adam.step();
    cpu_adam.zero_grad();
    gpu_adam.zero_grad();
  }
  EXPECT_LT(relative_error(cpu_layer.weight(), gpu_layer.weight()), kFp32Tolerance);
}

TEST_F(CudaKernels, AdamOverMoreParametersThanOneLaunchTakesMatchesTheCpu) {
  // 50 parameters of different sizes: two launches of the multi-tensor kernel.
  std::vector<Tensor> on_cpu;
  std::vector<Tensor> on_gpu;
  for (int i = 0; i < 50; ++i) {
    Tensor parameter = random({1 + 37 * i}).set_requires_grad(true);
    on_gpu.push_back(parameter.to(kCuda).detach().set_requires_grad(true));
    on_cpu.push_back(parameter);
  }
  optim::Adam cpu_adam(on_cpu, {.learning_rate = 0.01});
  optim::Adam gpu_adam(on_gpu, {.learning_rate = 0.01});
  for (int step = 0; step < 2; ++step) {
    for (std::size_t i = 0; i < on_cpu.size(); ++i) {
      const Tensor weights = random(on_cpu[i].shape());
      sum(mul(on_cpu[i], weights)).backward();
      sum(mul(on_gpu[i], weights.to(kCuda))).backward();
    }
    cpu_adam.step();
    gpu_adam.step();
    cpu_adam.zero_grad();
    gpu_adam.zero_grad();
  }
  for (std::size_t i = 0; i < on_cpu.size(); ++i) {
    EXPECT_LT(relative_error(on_cpu[i], on_gpu[i]), kFp32Tolerance) << "parameter " << i;
  }
}

TEST_F(CudaKernels, SgdWithMomentumAndWeightDecayMatchesTheCpu) {
  Generator cpu_init(6);
  Generator gpu_init(6);
  nn::Linear cpu_layer(20, 10, cpu_init);
  nn::Linear gpu_layer(20, 10, gpu_init);
  to_device(gpu_layer, kCuda);
  const optim::SgdOptions options{.learning_rate = 0.05, .momentum = 0.9, .weight_decay = 0.01};
  optim::Sgd cpu_sgd(cpu_layer.parameters(), options);
  optim::Sgd gpu_sgd(gpu_layer.parameters(), options);
  for (int step = 0; step < 3; ++step) {
    const Tensor input = random({8, 20});
    sum(mul(cpu_layer(input), cpu_layer(input))).backward();
    sum(mul(gpu_layer(input.to(kCuda)), gpu_layer(input.to(kCuda)))).backward();
    cpu_sgd.step();
    gpu_sgd.step();
    cpu_sgd.zero_grad();
    gpu_sgd.zero_grad();
  }
  EXPECT_LT(relative_error(cpu_layer.weight(), gpu_layer.weight()), kFp32Tolerance);
  EXPECT_LT(relative_error(*cpu_layer.bias(), *gpu_layer.bias()), kFp32Tolerance);
}

TEST_F(CudaKernels, MixingDevicesNamesBothDevices) {
  const Tensor on_cpu = random({3});
  try {
    add(on_cpu, on_cpu.to(kCuda));
    FAIL() << "an op ran on tensors of two devices";
  } catch (const DeviceMismatch& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cpu"), std::string::npos);
    EXPECT_NE(message.find("cuda:0"), std::string::npos);
  }
}

}  // namespace
}  // namespace tscope::engine::testing
