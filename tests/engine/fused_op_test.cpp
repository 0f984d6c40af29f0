// The fused bias + GELU + dropout op against the chain of separate ops it replaces.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gradcheck.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/nn/bias_gelu_dropout.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

using testing::random_leaf;

struct ForwardAndGradients {
  std::vector<float> output;
  std::vector<float> grad_x;
  std::vector<float> grad_bias;
};

template <typename Op>
ForwardAndGradients run(Op op) {
  Tensor x = random_leaf({8, 16}, 7, -3, 3).set_requires_grad(true);
  Tensor bias = random_leaf({16}, 8).set_requires_grad(true);
  Generator generator(42);
  const Tensor out = op(x, bias, generator);
  // A weighted sum so every element's gradient differs.
  sum(mul(out, random_leaf({8, 16}, 9))).backward();
  return {out.to_vector<float>(), x.grad().to_vector<float>(), bias.grad().to_vector<float>()};
}

void expect_near(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-5f * (1.0f + std::abs(expected[i]))) << "element " << i;
  }
}

TEST(FusedBiasGeluDropout, MatchesTheSeparateOpsFromTheSameSeed) {
  const ForwardAndGradients fused = run([](const Tensor& x, const Tensor& bias, Generator& g) {
    return bias_gelu_dropout(x, bias, 0.25, true, g);
  });
  const ForwardAndGradients separate = run([](const Tensor& x, const Tensor& bias, Generator& g) {
    return dropout(gelu(add(x, bias)), 0.25, true, g);
  });
  EXPECT_EQ(fused.output, separate.output);
  expect_near(fused.grad_x, separate.grad_x);
  expect_near(fused.grad_bias, separate.grad_bias);
}

TEST(FusedBiasGeluDropout, DropsAboutPOfTheElements) {
  Generator generator(3);
  const Tensor out = bias_gelu_dropout(full({200, 50}, 2.0), zeros({50}), 0.4, true, generator);
  const std::vector<float> values = out.to_vector<float>();
  const auto dropped = std::count(values.begin(), values.end(), 0.0f);
  EXPECT_NEAR(static_cast<double>(dropped) / static_cast<double>(values.size()), 0.4, 0.02);
}

TEST(FusedBiasGeluDropout, IsBiasPlusGeluOutsideTraining) {
  Generator generator(3);
  const Tensor x = random_leaf({4, 5}, 11);
  const Tensor bias = random_leaf({5}, 12);
  EXPECT_EQ(bias_gelu_dropout(x, bias, 0.5, false, generator).to_vector<float>(),
            gelu(add(x, bias)).to_vector<float>());
}

TEST(FusedBiasGeluDropout, RejectsABiasThatIsNotTheLastDim) {
  Generator generator(3);
  EXPECT_THROW(bias_gelu_dropout(zeros({4, 5}), zeros({4}), 0.1, true, generator), EngineError);
  EXPECT_THROW(bias_gelu_dropout(zeros({4, 5}), zeros({5}), 1.0, true, generator), EngineError);
}

TEST(FusedBiasGeluDropout, ModuleGivesTheSameResultFusedOrNot) {
  Generator first_init(5);
  Generator second_init(5);
  nn::BiasGeluDropout fused(16, 32, first_init, {.p = 0.2, .fused = true, .seed = 77});
  nn::BiasGeluDropout separate(16, 32, second_init, {.p = 0.2, .fused = false, .seed = 77});
  const Tensor x = random_leaf({6, 16}, 13);
  EXPECT_EQ(fused(x).to_vector<float>(), separate(x).to_vector<float>());
}

}  // namespace
}  // namespace tscope::engine
