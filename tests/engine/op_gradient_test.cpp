// Every differentiable op's backward agrees with central finite differences.

#include <gtest/gtest.h>

#include "gradcheck.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

using testing::distinct_leaf;
using testing::gradcheck;
using testing::random_leaf;
using Inputs = std::vector<Tensor>;

TEST(OpGradient, GradcheckRejectsAGradientThatIsWrong) {
  // The detached factor hides half of d(x*x)/dx from backward.
  EXPECT_FALSE(gradcheck([](const Inputs& x) { return mul(x[0], x[0].detach()); },
                         {random_leaf({4}, 0, 0.5, 1.0)}));
}

TEST(OpGradient, AddWithBroadcastSumsGradientBackToEachShape) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return add(x[0], x[1]); },
                        {random_leaf({3, 1, 4}, 1), random_leaf({2, 1}, 2)}));
}

TEST(OpGradient, SubWithBroadcast) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return sub(x[0], x[1]); },
                        {random_leaf({2, 3}, 3), random_leaf({3}, 4)}));
}

TEST(OpGradient, MulWithBroadcast) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return mul(x[0], x[1]); },
                        {random_leaf({2, 3}, 5), random_leaf({2, 1}, 6)}));
}

TEST(OpGradient, DivWithBroadcast) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return div(x[0], x[1]); },
                        {random_leaf({2, 3}, 7), random_leaf({3}, 8, 1.0, 2.0)}));
}

TEST(OpGradient, ScalarArithmetic) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return div(sub(mul(add(x[0], 2.0), 3.0), 1.0), 4.0); },
                {random_leaf({5}, 9)}));
}

TEST(OpGradient, Neg) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return neg(x[0]); }, {random_leaf({4}, 10)}));
}

TEST(OpGradient, Exp) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return exp(x[0]); }, {random_leaf({2, 3}, 11)}));
}

TEST(OpGradient, Log) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return log(x[0]); }, {random_leaf({2, 3}, 12, 0.5, 2.0)}));
}

TEST(OpGradient, Sqrt) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return sqrt(x[0]); }, {random_leaf({2, 3}, 13, 0.5, 2.0)}));
}

TEST(OpGradient, PowByScalar) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return pow(x[0], 3.0); }, {random_leaf({6}, 14)}));
}

TEST(OpGradient, Relu) {
  // Distinct values 0.1 apart and none at zero keep every element off the kink.
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return relu(add(x[0], 0.05)); },
                        {distinct_leaf({2, 5}, 15)}));
}

TEST(OpGradient, Gelu) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return gelu(x[0]); }, {random_leaf({8}, 16, -3, 3)}));
}

TEST(OpGradient, Sigmoid) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return sigmoid(x[0]); }, {random_leaf({8}, 17, -4, 4)}));
}

TEST(OpGradient, Tanh) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tanh(x[0]); }, {random_leaf({8}, 18, -2, 2)}));
}

TEST(OpGradient, SumOverDimsWithAndWithoutKeepdim) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return sum(x[0], {0, 2}, false);
      },
      {random_leaf({2, 3, 4}, 19)}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return sum(x[0], {1}, true); },
                        {random_leaf({2, 3, 4}, 20)}));
}

TEST(OpGradient, MeanOverDims) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return mean(x[0], {-1}, false); },
                        {random_leaf({3, 4}, 21)}));
}

TEST(OpGradient, MaxRoutesGradientToTheArgmax) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return max(x[0], 1, false).values; },
                        {distinct_leaf({3, 4, 2}, 22)}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return max(x[0]); }, {distinct_leaf({3, 4}, 23)}));
}

TEST(OpGradient, MatmulTwoDimensional) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return matmul(x[0], x[1]); },
                        {random_leaf({3, 4}, 24), random_leaf({4, 2}, 25)}));
}

TEST(OpGradient, MatmulBatchedWithBroadcastBatchDims) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return matmul(x[0], x[1]); },
                        {random_leaf({2, 1, 3, 4}, 26), random_leaf({3, 4, 2}, 27)}));
}

TEST(OpGradient, MatmulWithVectors) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return matmul(x[0], x[1]); },
                        {random_leaf({4}, 28), random_leaf({4, 3}, 29)}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return matmul(x[0], x[1]); },
                        {random_leaf({4}, 30), random_leaf({4}, 31)}));
}

TEST(OpGradient, MatmulOfTransposedViews) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return matmul(x[0].transpose(0, 1), x[1].transpose(0, 1)); },
                {random_leaf({4, 3}, 32), random_leaf({2, 4}, 33)}));
}

TEST(OpGradient, Linear) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return linear(x[0], x[1], x[2]); },
                        {random_leaf({5, 4}, 34), random_leaf({3, 4}, 35), random_leaf({3}, 36)}));
}

TEST(OpGradient, Conv2dWithStrideAndPadding) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) { return conv2d(x[0], x[1], x[2], {.stride = 2, .padding = 1}); },
      {random_leaf({2, 2, 5, 5}, 37), random_leaf({3, 2, 3, 3}, 38), random_leaf({3}, 39)}));
}

TEST(OpGradient, MaxPool2d) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return max_pool2d(x[0], 2); },
                        {distinct_leaf({2, 2, 4, 6}, 40)}));
}

TEST(OpGradient, SoftmaxOverInnerAndOuterDims) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return softmax(x[0], -1); }, {random_leaf({3, 5}, 41)}));
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return softmax(x[0], 0); }, {random_leaf({3, 5}, 42)}));
}

TEST(OpGradient, LogSoftmax) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return log_softmax(x[0], 1); }, {random_leaf({3, 5}, 43)}));
}

TEST(OpGradient, CrossEntropyFromLogits) {
  const Tensor targets = from_vector(std::vector<std::int64_t>{2, 0, 4, 1}, {4});
  EXPECT_TRUE(gradcheck([&](const Inputs& x) { return cross_entropy(x[0], targets); },
                        {random_leaf({4, 5}, 44, -2, 2)}));
}

TEST(OpGradient, DropoutWithAFixedMask) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        Generator generator(99);
        return dropout(x[0], 0.3, true, generator);
      },
      {random_leaf({4, 6}, 45)}));
}

TEST(OpGradient, FusedBiasGeluDropoutWithAFixedMask) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        Generator generator(99);
        return bias_gelu_dropout(x[0], x[1], 0.3, true, generator);
      },
      {random_leaf({4, 6}, 49, -2, 2), random_leaf({6}, 50)}));
}

TEST(OpGradient, LayerNormWithWeightAndBias) {
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return layer_norm(x[0], {4}, x[1], x[2]); },
                {random_leaf({3, 4}, 46, -2, 2), random_leaf({4}, 47), random_leaf({4}, 48)}));
}

TEST(OpGradient, ViewsPassGradientsThrough) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return mul(x[0].permute({2, 0, 1}).reshape({4, 6}).narrow(0, 1, 2),
                   x[1].unsqueeze(0).expand({2, 6}));
      },
      {random_leaf({2, 3, 4}, 49), random_leaf({6}, 50)}));
}

}  // namespace
}  // namespace tscope::engine
