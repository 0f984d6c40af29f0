// Forward results of the ops against direct computations: matrix products, convolution, pooling,
// reductions, softmax, losses, dropout and normalisation.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gradcheck.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

using testing::random_leaf;

void expect_all_near(const std::vector<float>& actual, const std::vector<float>& expected,
                     float tolerance = 1e-4f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "at element " << i;
  }
}

std::vector<float> naive_matmul(const Tensor& a, const Tensor& b) {
  const std::int64_t m = a.size(0);
  const std::int64_t k = a.size(1);
  const std::int64_t n = b.size(1);
  std::vector<float> out(static_cast<std::size_t>(m * n), 0.0f);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double total = 0.0;
      for (std::int64_t p = 0; p < k; ++p)
        total += a.at({i, p}) * b.at({p, j});
      out[static_cast<std::size_t>(i * n + j)] = static_cast<float>(total);
    }
  }
  return out;
}

TEST(OpForward, MatmulMatchesTheDefinition) {
  const Tensor a = random_leaf({5, 7}, 1);
  const Tensor b = random_leaf({7, 3}, 2);
  expect_all_near(matmul(a, b).to_vector<float>(), naive_matmul(a, b));
}

TEST(OpForward, MatmulReadsTransposedViewsWithoutChangingTheResult) {
  const Tensor a = random_leaf({7, 5}, 3);
  const Tensor b = random_leaf({3, 7}, 4);
  const Tensor at = a.transpose(0, 1);
  const Tensor bt = b.transpose(0, 1);
  expect_all_near(matmul(at, bt).to_vector<float>(),
                  naive_matmul(at.contiguous(), bt.contiguous()));
}

TEST(OpForward, MatmulBroadcastsBatchDims) {
  const Tensor a = random_leaf({2, 1, 3, 4}, 5);
  const Tensor b = random_leaf({3, 4, 2}, 6);
  const Tensor product = matmul(a, b);
  ASSERT_EQ(product.shape(), (Shape{2, 3, 3, 2}));
  for (std::int64_t i = 0; i < 2; ++i) {
    for (std::int64_t j = 0; j < 3; ++j) {
      expect_all_near(product.select(0, i).select(0, j).to_vector<float>(),
                      naive_matmul(a.select(0, i).select(0, 0), b.select(0, j)));
    }
  }
}

TEST(OpForward, MatmulOfVectorsFollowsNumPy) {
  const Tensor v = from_vector(std::vector<float>{1.0f, 2.0f}, {2});
  const Tensor m = from_vector(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  EXPECT_EQ(matmul(v, v).dim(), 0);
  EXPECT_FLOAT_EQ(matmul(v, v).item(), 5.0f);
  EXPECT_EQ(matmul(v, m).to_vector<float>(), (std::vector<float>{7, 10}));
  EXPECT_EQ(matmul(m, v).to_vector<float>(), (std::vector<float>{5, 11}));
}

TEST(OpForward, MatmulWithMismatchedInnerDimsNamesTheShapes) {
  try {
    matmul(zeros({2, 3}), zeros({4, 2}));
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_NE(std::string(error.what()).find("[2, 3]"), std::string::npos);
  }
}

TEST(OpForward, LinearIsInputTimesWeightTransposedPlusBias) {
  const Tensor x = from_vector(std::vector<float>{1.0f, 2.0f}, {1, 2});
  const Tensor w = from_vector(std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f}, {3, 2});
  const Tensor b = from_vector(std::vector<float>{0.5f, 0.5f, 0.5f}, {3});
  EXPECT_EQ(linear(x, w, b).to_vector<float>(), (std::vector<float>{1.5, 2.5, 3.5}));
}

TEST(OpForward, Conv2dMatchesADirectConvolution) {
  const Tensor input = random_leaf({2, 3, 6, 5}, 7);
  const Tensor weight = random_leaf({4, 3, 3, 2}, 8);
  const Tensor bias = random_leaf({4}, 9);
  const std::int64_t stride = 2;
  const std::int64_t padding = 1;
  const Tensor out = conv2d(input, weight, bias, {.stride = stride, .padding = padding});
  ASSERT_EQ(out.shape(), (Shape{2, 4, 3, 3}));
  for (std::int64_t n = 0; n < 2; ++n) {
    for (std::int64_t oc = 0; oc < 4; ++oc) {
      for (std::int64_t oh = 0; oh < 3; ++oh) {
        for (std::int64_t ow = 0; ow < 3; ++ow) {
          double total = bias.at({oc});
          for (std::int64_t c = 0; c < 3; ++c) {
            for (std::int64_t ki = 0; ki < 3; ++ki) {
              for (std::int64_t kj = 0; kj < 2; ++kj) {
                const std::int64_t ih = oh * stride - padding + ki;
                const std::int64_t iw = ow * stride - padding + kj;
                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 5) continue;
                total += input.at({n, c, ih, iw}) * weight.at({oc, c, ki, kj});
              }
            }
          }
          EXPECT_NEAR(out.at({n, oc, oh, ow}), total, 1e-4);
        }
      }
    }
  }
}

TEST(OpForward, Conv2dRejectsAChannelMismatch) {
  EXPECT_THROW(conv2d(zeros({1, 2, 4, 4}), zeros({1, 3, 3, 3}), std::nullopt), EngineError);
}

TEST(OpForward, MaxPool2dTakesTheMaximumOfEachWindow) {
  const Tensor x = arange(0, 16).reshape({1, 1, 4, 4});
  EXPECT_EQ(max_pool2d(x, 2).to_vector<float>(), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(max_pool2d(x, 3, 1).to_vector<float>(), (std::vector<float>{10, 11, 14, 15}));
}

TEST(OpForward, SumMeanAndMaxOverDims) {
  const Tensor x = arange(0, 6).reshape({2, 3});
  EXPECT_EQ(sum(x, {1}).to_vector<float>(), (std::vector<float>{3, 12}));
  EXPECT_EQ(sum(x, {0}, true).shape(), (Shape{1, 3}));
  EXPECT_EQ(mean(x, {0}).to_vector<float>(), (std::vector<float>{1.5, 2.5, 3.5}));
  EXPECT_FLOAT_EQ(mean(x).item(), 2.5f);
  const MaxResult best =
      max(from_vector(std::vector<float>{1.0f, 9.0f, 3.0f, 7.0f, 2.0f, 8.0f}, {2, 3}), 0, true);
  EXPECT_EQ(best.values.shape(), (Shape{1, 3}));
  EXPECT_EQ(best.values.to_vector<float>(), (std::vector<float>{7, 9, 8}));
  EXPECT_EQ(best.indices.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 1}));
}

TEST(OpForward, SumOfManyElementsKeepsPrecision) {
  EXPECT_FLOAT_EQ(sum(full({1 << 20}, 0.1)).item(), 104857.6f);
}

TEST(OpForward, SoftmaxRowsSumToOneAndHugeLogitsStayFinite) {
  const Tensor p =
      softmax(from_vector(std::vector<float>{1000.0f, 1001.0f, 1002.0f, 0.0f, 0.0f, 0.0f}, {2, 3}));
  expect_all_near(sum(p, {1}).to_vector<float>(), {1.0f, 1.0f}, 1e-6f);
  expect_all_near(p.to_vector<float>(),
                  {0.09003057f, 0.24472847f, 0.66524096f, 1.0f / 3, 1.0f / 3, 1.0f / 3});
}

TEST(OpForward, LogSoftmaxIsTheLogOfSoftmaxWithoutOverflow) {
  const Tensor x = from_vector(std::vector<float>{-500.0f, 0.0f, 500.0f}, {1, 3});
  const std::vector<float> log_p = log_softmax(x).to_vector<float>();
  EXPECT_FLOAT_EQ(log_p[2], 0.0f);
  EXPECT_FLOAT_EQ(log_p[1], -500.0f);
  EXPECT_TRUE(std::isfinite(log_p[0]));
}

TEST(OpForward, CrossEntropyIsTheMeanNegativeLogLikelihood) {
  const Tensor logits = from_vector(std::vector<float>{0.0f, 0.0f, std::log(3.0f), 0.0f}, {2, 2});
  const Tensor targets = from_vector(std::vector<std::int64_t>{0, 0}, {2});
  // Sample 0: p = 1/2; sample 1: p = 3/4.
  EXPECT_NEAR(cross_entropy(logits, targets).item(), -(std::log(0.5) + std::log(0.75)) / 2, 1e-6);
}

TEST(OpForward, CrossEntropyRejectsATargetOutsideTheClasses) {
  const Tensor targets = from_vector(std::vector<std::int64_t>{1, 5}, {2});
  try {
    cross_entropy(zeros({2, 3}), targets);
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_NE(std::string(error.what()).find("target 5 of sample 1"), std::string::npos)
        << error.what();
  }
}

TEST(OpForward, DropoutZeroesAboutPAndScalesTheRest) {
  Generator generator(11);
  const std::vector<float> out = dropout(ones({10000}), 0.25, true, generator).to_vector<float>();
  std::size_t zeroed = 0;
  for (const float value : out) {
    if (value == 0.0f) {
      ++zeroed;
    } else {
      EXPECT_FLOAT_EQ(value, 1.0f / 0.75f);
    }
  }
  EXPECT_NEAR(static_cast<double>(zeroed) / 10000.0, 0.25, 0.02);
}

TEST(OpForward, DropoutIsTheIdentityOutsideTraining) {
  Generator generator(11);
  const Tensor x = arange(0, 5);
  EXPECT_EQ(dropout(x, 0.5, false, generator).to_vector<float>(), x.to_vector<float>());
}

TEST(OpForward, DropoutWithTheSameSeedDropsTheSameElements) {
  Generator first(5);
  Generator second(5);
  EXPECT_EQ(dropout(ones({64}), 0.5, true, first).to_vector<float>(),
            dropout(ones({64}), 0.5, true, second).to_vector<float>());
}

TEST(OpForward, LayerNormGivesZeroMeanAndUnitVariancePerRow) {
  const Tensor y = layer_norm(random_leaf({4, 32}, 12, -5, 5), {32}, std::nullopt, std::nullopt);
  expect_all_near(mean(y, {1}).to_vector<float>(), std::vector<float>(4, 0.0f), 1e-5f);
  expect_all_near(mean(mul(y, y), {1}).to_vector<float>(), std::vector<float>(4, 1.0f), 1e-3f);
}

TEST(OpForward, GeluFollowsItsTanhForm) {
  const std::vector<float> inputs{-2.0f, -0.5f, 0.0f, 1.0f, 3.0f};
  const std::vector<float> out = gelu(from_vector(inputs, {5})).to_vector<float>();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const double x = inputs[i];
    const double expected =
        0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    EXPECT_NEAR(out[i], expected, 1e-6);
  }
}

TEST(OpForward, SigmoidIsStableForLargeMagnitudes) {
  const std::vector<float> out =
      sigmoid(from_vector(std::vector<float>{-100.0f, 0.0f, 100.0f}, {3})).to_vector<float>();
  EXPECT_GE(out[0], 0.0f);
  EXPECT_LT(out[0], 1e-40f);
  EXPECT_FLOAT_EQ(out[1], 0.5f);
  EXPECT_FLOAT_EQ(out[2], 1.0f);
}

}  // namespace
}  // namespace tscope::engine
