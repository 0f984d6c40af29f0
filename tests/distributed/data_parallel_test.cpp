// Data-parallel training on two MPI ranks (CTest starts this binary under mpirun -np 2): after
// DistributedDataParallel every rank's gradients are the average of the ranks' own gradients, as
// one process computes them, with overlap on or off; the reductions start during backward only
// with overlap on; and the ranks' parameters stay identical step after step.

#include "tscope/engine/distributed/data_parallel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fashion_mnist/models.h"
#include "mpi_group.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/sgd.h"

namespace tscope::engine::distributed {
namespace {

constexpr std::int64_t kPerRankBatch = 4;
// Small enough that the MLP's 235k parameters make several buckets.
constexpr std::size_t kBucketBytes = std::size_t{256} << 10;

struct Batch {
  Tensor inputs;
  Tensor targets;
};

// The global batch of step `step` and rank `rank`'s contiguous share of it.
Batch shard(int rank, std::uint64_t step) {
  Generator generator(1000 + step);
  const Tensor inputs = randn({2 * kPerRankBatch, 1, 28, 28}, generator);
  std::vector<std::int64_t> labels;
  for (std::int64_t i = 0; i < 2 * kPerRankBatch; ++i)
    labels.push_back((i * 7 + static_cast<std::int64_t>(step)) % 10);
  const Tensor targets = from_vector(labels, {2 * kPerRankBatch});
  return {inputs.narrow(0, rank * kPerRankBatch, kPerRankBatch).contiguous(),
          targets.narrow(0, rank * kPerRankBatch, kPerRankBatch).contiguous()};
}

std::shared_ptr<nn::Sequential> mlp(std::uint64_t seed) {
  Generator generator(seed);
  return examples::make_mlp(generator);
}

void backward(nn::Module& model, const Batch& batch) {
  for (const Tensor& parameter : model.parameters())
    parameter.set_grad(Tensor());
  cross_entropy(model(batch.inputs), batch.targets).backward();
}

std::vector<std::vector<float>> gradients(nn::Module& model) {
  std::vector<std::vector<float>> grads;
  for (const Tensor& parameter : model.parameters())
    grads.push_back(parameter.grad().to_vector<float>());
  return grads;
}

// The average of both ranks' gradients at seed 0's initial parameters, computed in this process.
std::vector<std::vector<float>> expected_average() {
  const auto model = mlp(0);
  backward(*model, shard(0, 0));
  auto average = gradients(*model);
  backward(*model, shard(1, 0));
  const auto second = gradients(*model);
  for (std::size_t p = 0; p < average.size(); ++p) {
    for (std::size_t i = 0; i < average[p].size(); ++i)
      average[p][i] = (average[p][i] + second[p][i]) / 2;
  }
  return average;
}

void expect_close(const std::vector<std::vector<float>>& actual,
                  const std::vector<std::vector<float>>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t p = 0; p < actual.size(); ++p) {
    ASSERT_EQ(actual[p].size(), expected[p].size());
    for (std::size_t i = 0; i < actual[p].size(); ++i) {
      ASSERT_NEAR(actual[p][i], expected[p][i], 1e-6 + 1e-5 * std::fabs(expected[p][i]))
          << "parameter " << p << " element " << i;
    }
  }
}

void expect_average_after_data_parallel(bool overlap) {
  ProcessGroup& group = world_group();
  // Rank 1 starts from other parameters: the construction's broadcast makes them rank 0's.
  const auto model = mlp(group.rank() == 0 ? 0 : 99);
  DistributedDataParallel parallel(*model, group,
                                   {.bucket_bytes = kBucketBytes, .overlap = overlap});
  ASSERT_GT(parallel.bucket_count(), 1u);
  backward(*model, shard(group.rank(), 0));
  parallel.finish();
  expect_close(gradients(*model), expected_average());
}

TEST(DataParallel, GradientsAreTheAverageOfEachRanksGradients) {
  TSCOPE_REQUIRE_TWO_RANKS();
  expect_average_after_data_parallel(true);
}

TEST(DataParallel, GradientsAreTheSameAverageWithOverlapOff) {
  TSCOPE_REQUIRE_TWO_RANKS();
  expect_average_after_data_parallel(false);
}

TEST(DataParallel, BucketReductionsStartDuringBackwardOnlyWithOverlap) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  for (const bool overlap : {true, false}) {
    const auto model = mlp(0);
    DistributedDataParallel parallel(*model, group,
                                     {.bucket_bytes = kBucketBytes, .overlap = overlap});
    const std::int64_t before = group.last_sequence();
    backward(*model, shard(group.rank(), 0));
    const std::int64_t during_backward = group.last_sequence() - before;
    parallel.finish();
    EXPECT_EQ(during_backward, overlap ? static_cast<std::int64_t>(parallel.bucket_count()) : 0)
        << "overlap " << overlap;
    EXPECT_EQ(group.last_sequence() - before, static_cast<std::int64_t>(parallel.bucket_count()));
  }
}

TEST(DataParallel, ParametersStayIdenticalAcrossRanksOverSteps) {
  TSCOPE_REQUIRE_TWO_RANKS();
  ProcessGroup& group = world_group();
  const auto model = mlp(group.rank() == 0 ? 0 : 99);
  DistributedDataParallel parallel(*model, group, {.bucket_bytes = kBucketBytes});
  optim::Sgd sgd(model->parameters(), {.learning_rate = 0.1, .momentum = 0.9});
  for (std::uint64_t step = 0; step < 3; ++step) {
    backward(*model, shard(group.rank(), step));
    parallel.finish();
    sgd.step();
  }
  for (const Tensor& parameter : model->parameters()) {
    const Tensor flat = parameter.detach().reshape({parameter.numel()}).contiguous();
    const Tensor both = zeros({2 * parameter.numel()});
    group.all_gather(both, flat);
    const std::vector<float> values = both.to_vector<float>();
    const auto half = static_cast<std::ptrdiff_t>(parameter.numel());
    ASSERT_TRUE(std::equal(values.begin(), values.begin() + half, values.begin() + half));
  }
}

}  // namespace
}  // namespace tscope::engine::distributed
