// The fused layer_norm and cross_entropy ops against the chains of separate ops they replace:
// the same values and gradients, to float rounding, and gradients that pass a finite-difference
// check.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

using testing::gradcheck;
using testing::random_leaf;
using Inputs = std::vector<Tensor>;

constexpr double kEps = 1e-5;

// Layer normalisation written out from the separate ops, as the engine computed it before fusing.
Tensor composed_layer_norm(const Tensor& x, const Shape& normalized_shape,
                           const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  Shape dims;
  for (auto d = x.dim() - static_cast<std::int64_t>(normalized_shape.size()); d < x.dim(); ++d)
    dims.push_back(d);
  const Tensor centred = sub(x, mean(x, dims, true));
  const Tensor variance = mean(mul(centred, centred), dims, true);
  Tensor out = div(centred, sqrt(add(variance, kEps)));
  if (weight) out = mul(out, *weight);
  if (bias) out = add(out, *bias);
  return out;
}

// Cross-entropy as log_softmax followed by the mean negative log-likelihood of the targets.
Tensor composed_cross_entropy(const Tensor& logits, const std::vector<std::int64_t>& targets) {
  const std::int64_t classes = logits.size(1);
  std::vector<float> one_hot(static_cast<std::size_t>(logits.numel()), 0.0f);
  for (std::size_t row = 0; row < targets.size(); ++row) {
    one_hot[row * static_cast<std::size_t>(classes) + static_cast<std::size_t>(targets[row])] =
        1.0f;
  }
  const Tensor picked = mul(log_softmax(logits, 1), from_vector(one_hot, logits.shape()));
  return neg(mean(sum(picked, {1})));
}

// Largest difference relative to the largest magnitude of `expected`.
double relative_difference(const Tensor& expected, const Tensor& actual) {
  const std::vector<float> want = expected.to_vector<float>();
  const std::vector<float> got = actual.to_vector<float>();
  EXPECT_EQ(want.size(), got.size());
  double largest = 1e-12;
  double difference = 0.0;
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
    largest = std::max(largest, static_cast<double>(std::abs(want[i])));
    difference = std::max(difference, static_cast<double>(std::abs(want[i] - got[i])));
  }
  return difference / largest;
}

struct LayerNormCase {
  Shape input_shape;
  Shape normalized_shape;
  bool with_weight = true;
  bool with_bias = true;
  // Normalise a transposed view of a leaf of the reversed shape, so the input is not contiguous.
  bool transposed = false;
};

struct LayerNormRun {
  Tensor output;
  Tensor grad_input;
  Tensor grad_weight;
  Tensor grad_bias;
};

template <typename LayerNorm>
LayerNormRun run_layer_norm(const LayerNormCase& c, LayerNorm layer_norm_fn) {
  Shape leaf_shape = c.input_shape;
  if (c.transposed) std::reverse(leaf_shape.begin(), leaf_shape.end());
  Tensor leaf = random_leaf(leaf_shape, 21, -3, 5).set_requires_grad(true);
  const Tensor input = c.transposed ? leaf.transpose(0, -1) : leaf;
  std::optional<Tensor> weight;
  std::optional<Tensor> bias;
  if (c.with_weight) weight = random_leaf(c.normalized_shape, 22, 0.5, 1.5).set_requires_grad(true);
  if (c.with_bias) bias = random_leaf(c.normalized_shape, 23).set_requires_grad(true);
  const Tensor out = layer_norm_fn(input, c.normalized_shape, weight, bias);
  // A weighted sum so every element's gradient differs.
  sum(mul(out, random_leaf(out.shape(), 24))).backward();
  return {out, leaf.grad(), weight ? weight->grad() : Tensor(), bias ? bias->grad() : Tensor()};
}

void expect_fused_matches_composed(const LayerNormCase& c) {
  const LayerNormRun fused = run_layer_norm(
      c,
      [](const Tensor& x, const Shape& shape, const std::optional<Tensor>& weight,
         const std::optional<Tensor>& bias) { return layer_norm(x, shape, weight, bias, kEps); });
  const LayerNormRun composed = run_layer_norm(c, composed_layer_norm);
  constexpr double kTolerance = 1e-5;
  EXPECT_EQ(fused.output.shape(), composed.output.shape());
  EXPECT_LT(relative_difference(composed.output, fused.output), kTolerance);
  EXPECT_LT(relative_difference(composed.grad_input, fused.grad_input), kTolerance);
  ASSERT_EQ(fused.grad_weight.defined(), c.with_weight);
  ASSERT_EQ(fused.grad_bias.defined(), c.with_bias);
  if (c.with_weight) {
    EXPECT_EQ(fused.grad_weight.shape(), c.normalized_shape);
    EXPECT_LT(relative_difference(composed.grad_weight, fused.grad_weight), kTolerance);
  }
  if (c.with_bias) {
    EXPECT_EQ(fused.grad_bias.shape(), c.normalized_shape);
    EXPECT_LT(relative_difference(composed.grad_bias, fused.grad_bias), kTolerance);
  }
}

TEST(FusedLayerNorm, MatchesTheComposedOpsWithWeightAndBias) {
  expect_fused_matches_composed({.input_shape = {6, 10}, .normalized_shape = {10}});
  expect_fused_matches_composed({.input_shape = {4, 3, 37}, .normalized_shape = {37}});
}

TEST(FusedLayerNorm, MatchesTheComposedOpsOverTwoNormalizedDims) {
  expect_fused_matches_composed({.input_shape = {5, 3, 4}, .normalized_shape = {3, 4}});
}

TEST(FusedLayerNorm, MatchesTheComposedOpsWithoutWeightOrBias) {
  expect_fused_matches_composed(
      {.input_shape = {7, 9}, .normalized_shape = {9}, .with_weight = false, .with_bias = false});
  expect_fused_matches_composed(
      {.input_shape = {7, 9}, .normalized_shape = {9}, .with_weight = true, .with_bias = false});
  expect_fused_matches_composed(
      {.input_shape = {7, 9}, .normalized_shape = {9}, .with_weight = false, .with_bias = true});
}

TEST(FusedLayerNorm, MatchesTheComposedOpsOnANonContiguousInput) {
  expect_fused_matches_composed(
      {.input_shape = {8, 6}, .normalized_shape = {6}, .transposed = true});
}

TEST(FusedLayerNorm, StaysAccurateWhenTheMeanDwarfsTheSpread) {
  // Values 1e4 + [0, 1): a one-pass E[x^2] - E[x]^2 in float would lose the variance entirely.
  const Tensor x = add(random_leaf({3, 64}, 25, 0, 1), 1e4);
  const Tensor y = layer_norm(x, {64}, std::nullopt, std::nullopt, kEps);
  const Tensor expected = composed_layer_norm(sub(x, 1e4), {64}, std::nullopt, std::nullopt);
  EXPECT_LT(relative_difference(expected, y), 1e-5);
}

TEST(FusedLayerNorm, GradientsPassGradcheckOverTwoNormalizedDims) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return layer_norm(x[0], {2, 3}, x[1], x[2], kEps);
      },
      {random_leaf({4, 2, 3}, 26, -2, 2), random_leaf({2, 3}, 27), random_leaf({2, 3}, 28)}));
}

TEST(FusedLayerNorm, GradientPassesGradcheckWithoutWeightOrBias) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) { return layer_norm(x[0], {5}, std::nullopt, std::nullopt, kEps); },
      {random_leaf({3, 5}, 29, -2, 2)}));
}

TEST(FusedLayerNorm, RejectsAWeightOfAnotherShape) {
  EXPECT_THROW(layer_norm(zeros({4, 6}), {6}, zeros({3}), std::nullopt, kEps), EngineError);
  EXPECT_THROW(layer_norm(zeros({4, 6}), {6}, std::nullopt, zeros({2, 3}), kEps), EngineError);
}

TEST(FusedCrossEntropy, ValueAndGradientMatchLogSoftmaxAndNll) {
  const std::vector<std::int64_t> labels{3, 0, 6, 6, 1};
  const Tensor targets = from_vector(labels, {5});
  Tensor fused_logits = random_leaf({5, 7}, 30, -4, 4).set_requires_grad(true);
  Tensor composed_logits = random_leaf({5, 7}, 30, -4, 4).set_requires_grad(true);
  const Tensor fused = cross_entropy(fused_logits, targets);
  const Tensor composed = composed_cross_entropy(composed_logits, labels);
  EXPECT_EQ(fused.shape(), Shape{});
  EXPECT_NEAR(fused.item<float>(), composed.item<float>(), 1e-6 * std::abs(composed.item<float>()));
  mul(fused, 3.0).backward();
  mul(composed, 3.0).backward();
  EXPECT_LT(relative_difference(composed_logits.grad(), fused_logits.grad()), 1e-5);
}

TEST(FusedCrossEntropy, GradientPassesGradcheckOnAWideRow) {
  const Tensor targets = from_vector(std::vector<std::int64_t>{40, 0, 63}, {3});
  EXPECT_TRUE(gradcheck([&](const Inputs& x) { return cross_entropy(x[0], targets); },
                        {random_leaf({3, 64}, 31, -3, 3)}));
}

TEST(FusedCrossEntropy, RejectsANegativeTargetNamingTheSample) {
  const Tensor targets = from_vector(std::vector<std::int64_t>{0, 2, -1}, {3});
  try {
    cross_entropy(zeros({3, 4}), targets);
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cross_entropy: target -1 of sample 2 is outside [0, 4)"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace tscope::engine
