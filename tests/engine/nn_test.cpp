// Behaviour of the nn modules: parameter naming, seeded PyTorch-style initialisation, forward
// results and shapes, train/eval mode, and gradients reaching every parameter.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tscope/engine/autograd.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/nn/activation.h"
#include "tscope/engine/nn/conv2d.h"
#include "tscope/engine/nn/dropout.h"
#include "tscope/engine/nn/flatten.h"
#include "tscope/engine/nn/layer_norm.h"
#include "tscope/engine/nn/linear.h"
#include "tscope/engine/nn/linear_activation.h"
#include "tscope/engine/nn/max_pool2d.h"
#include "tscope/engine/nn/sequential.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::nn {
namespace {

Tensor floats(const std::vector<float>& values, const Shape& shape) {
  return from_vector(values, shape);
}

std::vector<std::string> names_of(const Module& module) {
  std::vector<std::string> names;
  for (const auto& [name, parameter] : module.named_parameters()) {
    names.push_back(name);
  }
  return names;
}

TEST(Module, LinearRegistersWeightAndBiasThatRequireGrad) {
  Generator generator(0);
  Linear layer(3, 2, generator);
  EXPECT_EQ(names_of(layer), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(layer.weight().shape(), (Shape{2, 3}));
  EXPECT_EQ(layer.bias()->shape(), (Shape{2}));
  EXPECT_TRUE(layer.weight().requires_grad());
  EXPECT_EQ(layer.parameter_count(), 8);
}

TEST(Module, SequentialNamesParametersByPositionRecursively) {
  Generator generator(0);
  auto inner = std::make_shared<Sequential>();
  inner->emplace_back<Linear>(4, 4, generator);
  inner->emplace_back<LayerNorm>(Shape{4});
  Sequential model;
  model.emplace_back<Linear>(2, 4, generator, /*with_bias=*/false);
  model.emplace_back<ReLU>();
  model.push_back(inner);
  EXPECT_EQ(names_of(model), (std::vector<std::string>{"0.weight", "2.0.weight", "2.0.bias",
                                                       "2.1.weight", "2.1.bias"}));
}

TEST(Module, TrainAndEvalReachEveryDescendant) {
  auto inner = std::make_shared<Sequential>();
  auto dropout = inner->emplace_back<Dropout>(0.5, 1);
  Sequential model;
  model.push_back(inner);
  model.eval();
  EXPECT_FALSE(dropout->is_training());
  model.train();
  EXPECT_TRUE(dropout->is_training());
}

TEST(Init, LinearWeightsAreUniformWithinOneOverSqrtFanIn) {
  Generator generator(3);
  Linear layer(400, 300, generator);
  const auto weights = layer.weight().to_vector<float>();
  const double bound = 1.0 / std::sqrt(400.0);
  double sum_of_squares = 0.0;
  for (const float w : weights) {
    ASSERT_LE(std::abs(w), bound);
    sum_of_squares += double{w} * w;
  }
  // U(-b, b) has variance b^2 / 3; 120000 draws land within 2% of it.
  EXPECT_NEAR(sum_of_squares / static_cast<double>(weights.size()), bound * bound / 3.0,
              0.02 * bound * bound / 3.0);
  for (const float b : layer.bias()->to_vector<float>()) {
    EXPECT_LE(std::abs(b), bound);
  }
}

TEST(Init, ConvFanInCountsChannelsAndKernel) {
  Generator generator(3);
  Conv2d layer(6, 16, 5, generator);
  const auto weights = layer.weight().to_vector<float>();
  const double bound = 1.0 / std::sqrt(6.0 * 5 * 5);
  const float largest = *std::max_element(
      weights.begin(), weights.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  EXPECT_LE(std::abs(largest), bound);
  EXPECT_GT(std::abs(largest), 0.9 * bound);
}

TEST(Init, SameSeedGivesSameWeightsAndOtherSeedsDiffer) {
  Generator first(11);
  Generator second(11);
  Generator other(12);
  const auto a = Linear(8, 8, first).weight().to_vector<float>();
  const auto b = Linear(8, 8, second).weight().to_vector<float>();
  const auto c = Linear(8, 8, other).weight().to_vector<float>();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Linear, ForwardComputesInputTimesWeightTransposedPlusBias) {
  Generator generator(0);
  Linear layer(2, 2, generator);
  {
    NoGradGuard no_grad;
    Tensor weight = layer.weight();
    weight.copy_(floats({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}));
    Tensor bias = *layer.bias();
    bias.copy_(floats({0.5f, -0.5f}, {2}));
  }
  const Tensor output = layer(floats({1.0f, 1.0f}, {1, 2}));
  // [1 + 2 + 0.5, 3 + 4 - 0.5]
  EXPECT_EQ(output.to_vector<float>(), (std::vector<float>{3.5f, 6.5f}));
}

TEST(LinearActivation, EqualsLinearThenTheActivationFromTheSameSeed) {
  for (const FusedActivation activation : {FusedActivation::kRelu, FusedActivation::kGelu}) {
    Generator fused_init(4);
    Generator unfused_init(4);
    LinearActivation fused(6, 5, activation, fused_init);
    Linear unfused(6, 5, unfused_init);
    EXPECT_EQ(fused.parameters().size(), 2u);
    Generator inputs(5);
    const Tensor x = randn({3, 6}, inputs);
    const Tensor pre_activation = unfused(x);
    const Tensor expected =
        activation == FusedActivation::kRelu ? relu(pre_activation) : gelu(pre_activation);
    const Tensor actual = fused(x);
    EXPECT_EQ(actual.to_vector<float>(), expected.to_vector<float>());
    sum(mul(actual, actual)).backward();
    sum(mul(expected, expected)).backward();
    for (std::size_t i = 0; i < 2; ++i) {
      const std::vector<float> fused_grad = fused.parameters()[i].grad().to_vector<float>();
      const std::vector<float> unfused_grad = unfused.parameters()[i].grad().to_vector<float>();
      ASSERT_EQ(fused_grad.size(), unfused_grad.size());
      for (std::size_t j = 0; j < fused_grad.size(); ++j) {
        EXPECT_NEAR(fused_grad[j], unfused_grad[j], 1e-5f) << "parameter " << i << " element " << j;
      }
    }
  }
}

TEST(Conv2d, PaddingOneKeepsTheSpatialSize) {
  Generator generator(0);
  Conv2d layer(3, 4, 3, generator, {.stride = 1, .padding = 1});
  EXPECT_EQ(layer(zeros({2, 3, 8, 8})).shape(), (Shape{2, 4, 8, 8}));
}

TEST(MaxPool2d, TakesTheMaximumOfEachWindow) {
  MaxPool2d pool(2);
  const Tensor input =
      from_vector(std::vector<float>{1, 5, 2, 0, 3, 4, 8, 7, 0, 0, 1, 1, 9, 0, 1, 2}, {1, 1, 4, 4});
  EXPECT_EQ(pool(input).to_vector<float>(), (std::vector<float>{5, 8, 9, 2}));
}

TEST(Flatten, KeepsTheBatchDimension) {
  Flatten flatten;
  EXPECT_EQ(flatten(zeros({2, 3, 4, 5})).shape(), (Shape{2, 60}));
}

TEST(Activation, ReluClampsNegativesAndGeluFollowsItsTanhForm) {
  const Tensor input = floats({-1.0f, 0.0f, 2.0f}, {3});
  EXPECT_EQ(ReLU()(input).to_vector<float>(), (std::vector<float>{0.0f, 0.0f, 2.0f}));
  const auto gelu_values = GELU()(input).to_vector<float>();
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) at x = -1 and x = 2
  EXPECT_NEAR(gelu_values[0], -0.158808, 1e-5);
  EXPECT_NEAR(gelu_values[1], 0.0, 1e-7);
  EXPECT_NEAR(gelu_values[2], 1.954598, 1e-5);
}

TEST(Dropout, IsTheIdentityInEvalMode) {
  Dropout dropout(0.5, 7);
  dropout.eval();
  const Tensor input = ones({100});
  EXPECT_EQ(dropout(input).to_vector<float>(), input.to_vector<float>());
}

TEST(Dropout, ZeroesSomeAndScalesTheRestInTrainMode) {
  Dropout dropout(0.5, 7);
  const auto values = dropout(ones({1000})).to_vector<float>();
  const auto zeroed = std::count(values.begin(), values.end(), 0.0f);
  const auto doubled = std::count(values.begin(), values.end(), 2.0f);
  EXPECT_EQ(zeroed + doubled, 1000);
  EXPECT_GT(zeroed, 400);
  EXPECT_LT(zeroed, 600);
}

TEST(Dropout, RejectsAProbabilityOfOne) {
  EXPECT_THROW(Dropout(1.0, 0), std::invalid_argument);
}

TEST(LayerNorm, StartsAsPlainNormalisation) {
  LayerNorm norm({4});
  const auto values = norm(floats({1.0f, 2.0f, 3.0f, 6.0f}, {1, 4})).to_vector<float>();
  double mean = 0.0;
  double variance = 0.0;
  for (const float v : values)
    mean += v / 4.0;
  for (const float v : values)
    variance += (v - mean) * (v - mean) / 4.0;
  EXPECT_NEAR(mean, 0.0, 1e-6);
  EXPECT_NEAR(variance, 1.0, 1e-4);
}

TEST(Sequential, BackwardReachesEveryParameter) {
  Generator generator(5);
  Sequential model;
  model.emplace_back<Conv2d>(1, 2, 3, generator, Conv2dOptions{.stride = 1, .padding = 1});
  model.emplace_back<GELU>();
  model.emplace_back<MaxPool2d>(2);
  model.emplace_back<Flatten>();
  model.emplace_back<Linear>(2 * 2 * 2, 5, generator);
  model.emplace_back<LayerNorm>(Shape{5});
  model.emplace_back<Linear>(5, 3, generator);
  const Tensor logits = model(randn({4, 1, 4, 4}, generator));
  ASSERT_EQ(logits.shape(), (Shape{4, 3}));
  cross_entropy(logits, from_vector(std::vector<std::int64_t>{0, 1, 2, 1}, {4})).backward();
  for (const auto& [name, parameter] : model.named_parameters()) {
    ASSERT_TRUE(parameter.grad().defined()) << name;
    EXPECT_EQ(parameter.grad().shape(), parameter.shape()) << name;
  }
}

}  // namespace
}  // namespace tscope::engine::nn
