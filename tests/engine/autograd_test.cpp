// Define-by-run autograd semantics: accumulation, no-grad scopes, freed and retained graphs,
// detach, requires_grad propagation and broadcast gradients.

#include "tscope/engine/autograd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/node.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

Tensor leaf(std::vector<float> values) {
  const auto count = static_cast<std::int64_t>(values.size());
  return from_vector(values, {count}, {.requires_grad = true});
}

TEST(Autograd, GradientsAccumulateAcrossBackwardCalls) {
  const Tensor x = leaf({1, 2, 3});
  sum(mul(x, 2.0)).backward();
  sum(mul(x, 2.0)).backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{4, 4, 4}));
}

TEST(Autograd, ZeroingTheGradStartsAccumulationAfresh) {
  const Tensor x = leaf({1, 2});
  sum(mul(x, x)).backward();
  {
    const NoGradGuard no_grad;
    x.grad().zero_();
  }
  sum(x).backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(Autograd, AVariableUsedTwiceGetsTheGradientOfBothPaths) {
  const Tensor x = leaf({3});
  add(mul(x, x), x).backward();
  EXPECT_FLOAT_EQ(x.grad().item(), 7.0f);
}

TEST(Autograd, LeavesGivenOneGradientEachGetTheirOwnCopy) {
  // add's backward hands both inputs the very same gradient tensor.
  const Tensor a = leaf({1, 2});
  const Tensor b = leaf({3, 4});
  sum(add(a, b)).backward();
  {
    const NoGradGuard no_grad;
    a.grad().mul_(5.0);
  }
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{5, 5}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(Autograd, AGradientTheCallerStillHoldsIsCopiedIntoTheLeaf) {
  const Tensor x = leaf({1, 2, 3});
  const Tensor gradient = ones({3});
  x.backward(gradient);
  {
    const NoGradGuard no_grad;
    x.grad().zero_();
  }
  EXPECT_EQ(gradient.to_vector<float>(), (std::vector<float>{1, 1, 1}));
}

TEST(Autograd, NoGradGuardStopsRecordingAndRestoresOnExit) {
  const Tensor x = leaf({1, 2});
  {
    const NoGradGuard no_grad;
    const Tensor y = mul(x, 3.0);
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
  }
  EXPECT_TRUE(GradMode::is_enabled());
  EXPECT_TRUE(mul(x, 3.0).requires_grad());
}

TEST(Autograd, SecondBackwardThroughAFreedGraphIsAClearError) {
  const Tensor x = leaf({1, 2});
  const Tensor loss = sum(exp(x));
  loss.backward();
  try {
    loss.backward();
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_NE(std::string(error.what()).find("retain_graph"), std::string::npos) << error.what();
  }
}

TEST(Autograd, RetainGraphAllowsASecondBackward) {
  const Tensor x = leaf({0, 1});
  const Tensor loss = sum(exp(x));
  loss.backward(true);
  loss.backward();
  const std::vector<float> grad = x.grad().to_vector<float>();
  EXPECT_FLOAT_EQ(grad[0], 2.0f);
  EXPECT_NEAR(grad[1], 2.0f * std::exp(1.0f), 1e-5);
}

TEST(Autograd, DetachCutsTheGraphAndSharesStorage) {
  const Tensor x = leaf({2});
  const Tensor y = mul(x, x);
  const Tensor cut = y.detach();
  EXPECT_FALSE(cut.requires_grad());
  EXPECT_EQ(cut.storage(), y.storage());
  mul(cut, x).backward();
  EXPECT_FLOAT_EQ(x.grad().item(), 4.0f);
}

TEST(Autograd, RequiresGradPropagatesFromAnyInputThatRequiresIt) {
  const Tensor x = leaf({1});
  const Tensor constant = from_vector(std::vector<float>{2.0f}, {1});
  const Tensor y = mul(x, constant);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_FALSE(mul(constant, constant).requires_grad());
  y.backward();
  EXPECT_FALSE(constant.grad().defined());
}

TEST(Autograd, GradientOfABroadcastInputIsSummedToItsShape) {
  const Tensor bias = from_vector(std::vector<float>{0.0f, 0.0f}, {1, 2}, {.requires_grad = true});
  sum(add(zeros({3, 2}), bias)).backward();
  EXPECT_EQ(bias.grad().shape(), (Shape{1, 2}));
  EXPECT_EQ(bias.grad().to_vector<float>(), (std::vector<float>{3, 3}));
}

TEST(Autograd, BackwardWithAnExplicitGradient) {
  const Tensor x = leaf({1, 2});
  mul(x, 3.0).backward(from_vector(std::vector<float>{1.0f, 10.0f}, {2}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 30}));
}

TEST(Autograd, BackwardOfANonScalarNeedsAGradient) {
  EXPECT_THROW(mul(leaf({1, 2}), 2.0).backward(), EngineError);
}

TEST(Autograd, BackwardOfATensorThatNeedsNoGradIsAnError) {
  EXPECT_THROW(sum(ones({2})).backward(), EngineError);
}

TEST(Autograd, NodesAreNamedForTheirOp) {
  EXPECT_EQ(mul(leaf({1}), leaf({2})).grad_fn()->name(), "MulBackward");
}

TEST(Autograd, InPlaceUpdateOfALeafThatRequiresGradIsRefusedUnlessGradIsOff) {
  Tensor x = leaf({1, 2});
  EXPECT_THROW(x.add_(ones({2})), EngineError);
  {
    const NoGradGuard no_grad;
    x.add_(ones({2}), -0.5);
  }
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0.5, 1.5}));
}

TEST(Autograd, OnlyFloatLeavesCanRequireGrad) {
  Tensor labels = zeros({2}, {.dtype = DType::kInt64});
  EXPECT_THROW(labels.set_requires_grad(true), EngineError);
  const Tensor y = mul(leaf({1}), 2.0);
  Tensor non_leaf = y;
  EXPECT_THROW(non_leaf.set_requires_grad(false), EngineError);
}

TEST(Autograd, PostAccumulateGradHookSeesTheLeafOnceItsWholeGradientIsIn) {
  const Tensor x = leaf({1, 2});
  std::vector<std::vector<float>> seen;
  x.set_post_accumulate_grad_hook(
      [&seen](const Tensor& hooked) { seen.push_back(hooked.grad().to_vector<float>()); });
  // x feeds the loss twice; the hook runs once, after both contributions are summed.
  sum(add(mul(x, 2.0), mul(x, 3.0))).backward();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<float>{5, 5}));
  x.set_post_accumulate_grad_hook(nullptr);
  sum(x).backward();
  EXPECT_EQ(seen.size(), 1u);
}

TEST(Autograd, PostAccumulateGradHookIsRefusedOnANonLeaf) {
  const Tensor x = leaf({1, 2});
  const Tensor y = mul(x, 2.0);
  EXPECT_THROW(y.set_post_accumulate_grad_hook([](const Tensor&) {}), EngineError);
}

}  // namespace
}  // namespace tscope::engine
