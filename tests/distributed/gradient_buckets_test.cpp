// How data-parallel training groups gradients into buckets: reverse registration order (about the
// order backward produces them), each bucket closed before it would pass the byte cap.

#include <gtest/gtest.h>

#include "tscope/engine/distributed/data_parallel.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::distributed {
namespace {

using Buckets = std::vector<std::vector<std::size_t>>;

TEST(GradientBuckets, TakeParametersInReverseOrderUpToTheCap) {
  // 40, 400, 40 and 4 bytes of float32.
  const std::vector<Tensor> parameters{zeros({10}), zeros({100}), zeros({10}), zeros({1})};
  EXPECT_EQ(plan_gradient_buckets(parameters, 44), (Buckets{{3, 2}, {1}, {0}}));
  EXPECT_EQ(plan_gradient_buckets(parameters, 1000), (Buckets{{3, 2, 1, 0}}));
}

TEST(GradientBuckets, AParameterLargerThanTheCapGetsABucketOfItsOwn) {
  const std::vector<Tensor> parameters{zeros({1}), zeros({1000}), zeros({1})};
  EXPECT_EQ(plan_gradient_buckets(parameters, 8), (Buckets{{2}, {1}, {0}}));
}

TEST(GradientBuckets, NoParametersMakeNoBuckets) {
  EXPECT_TRUE(plan_gradient_buckets({}, 1024).empty());
}

}  // namespace
}  // namespace tscope::engine::distributed
