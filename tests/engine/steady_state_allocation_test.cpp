// A training step in its steady state asks the system for no memory: after a few warm-up steps,
// every tensor block the example models' steps (forward, cross-entropy, backward, Adam) take comes
// from the CPU allocator's cache, every block they free goes back to it, and the allocator's own
// tables reuse their nodes. Counted, not timed.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "test_data.h"
#include "tscope/engine/cpu_allocator.h"
#include "tscope/engine/data/fashion_mnist.h"
#include "tscope/engine/optim/adam.h"

namespace tscope::examples {
namespace {

constexpr std::size_t kBatch = 64;
constexpr std::size_t kWarmupSteps = 3;
constexpr std::size_t kMeasuredSteps = 5;

// The system allocations and frees of kMeasuredSteps steps on fresh real batches, after
// kWarmupSteps steps.
engine::SystemCalls steady_state_system_calls(ModelKind kind, bool fused) {
  const auto directory = tscope::testing::fashion_mnist_dir();
  const engine::FashionMnist train_set(directory, engine::FashionMnistSplit::kTrain);
  engine::Generator generator(0);
  auto model = make_model(kind, generator, fused);
  engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
  std::vector<engine::LabeledBatch> batches;
  for (std::size_t b = 0; b < kWarmupSteps + kMeasuredSteps; ++b) {
    std::vector<std::size_t> indices(kBatch);
    std::iota(indices.begin(), indices.end(), b * kBatch);
    batches.push_back(train_set.load_batch(indices));
  }
  engine::SystemCalls before;
  for (std::size_t step = 0; step < batches.size(); ++step) {
    if (step == kWarmupSteps) before = engine::cpu_allocator().system_calls();
    train_step(*model, optimizer, batches[step].inputs, batches[step].targets);
  }
  const engine::SystemCalls after = engine::cpu_allocator().system_calls();
  return {after.allocations - before.allocations, after.frees - before.frees,
          after.table_allocations - before.table_allocations};
}

class SteadyStateStep : public ::testing::TestWithParam<std::pair<ModelKind, bool>> {
 protected:
  void SetUp() override {
    TSCOPE_REQUIRE_FILE(tscope::testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
  }
};

TEST_P(SteadyStateStep, TakesNoMemoryFromTheSystemAndGivesNoneBack) {
  const auto [kind, fused] = GetParam();
  const engine::SystemCalls calls = steady_state_system_calls(kind, fused);
  EXPECT_EQ(calls.allocations, 0u) << "aligned_alloc calls in " << kMeasuredSteps << " steps";
  EXPECT_EQ(calls.frees, 0u) << "free calls in " << kMeasuredSteps << " steps";
  EXPECT_EQ(calls.table_allocations, 0u)
      << "allocations of the allocator's own tables in " << kMeasuredSteps << " steps";
}

// The counts above are the allocator's real calls: with its cache off, the same steps take every
// block from the system and give it back.
TEST_F(SteadyStateStep, WithoutTheCacheTakesEveryBlockFromTheSystem) {
  engine::cpu_allocator().set_cache_limit(0);
  const engine::SystemCalls calls = steady_state_system_calls(ModelKind::kMlp, false);
  engine::cpu_allocator().set_cache_limit(engine::CpuAllocator::kDefaultCacheLimit);
  EXPECT_GT(calls.allocations, kMeasuredSteps);
  EXPECT_GT(calls.frees, kMeasuredSteps);
}

INSTANTIATE_TEST_SUITE_P(
    ExampleModels, SteadyStateStep,
    ::testing::Values(std::pair{ModelKind::kCnn, false}, std::pair{ModelKind::kCnn, true},
                      std::pair{ModelKind::kMlp, false}, std::pair{ModelKind::kMlp, true}),
    [](const ::testing::TestParamInfo<std::pair<ModelKind, bool>>& model) {
      return std::string(model.param.first == ModelKind::kCnn ? "Cnn" : "Mlp") +
             (model.param.second ? "Fused" : "Unfused");
    });

}  // namespace
}  // namespace tscope::examples
