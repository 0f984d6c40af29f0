// A short real training run: the example's MLP, loop and optimizer on the real Fashion-MNIST
// files. Its loss must fall and its test accuracy must beat chance (10%) by a wide margin.

#include "fashion_mnist/training.h"

#include <gtest/gtest.h>

#include <numeric>
#include <span>

#include "fashion_mnist/models.h"
#include "test_data.h"
#include "tscope/engine/data/fashion_mnist.h"
#include "tscope/engine/optim/adam.h"

namespace tscope::examples {
namespace {

double mean_of(std::span<const float> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

TEST(Training, MlpLearnsFashionMnistInAFewHundredSteps) {
  const auto directory = tscope::testing::fashion_mnist_dir();
  TSCOPE_REQUIRE_FILE(directory / "train-images-idx3-ubyte.gz");
  const engine::FashionMnist train_set(directory, engine::FashionMnistSplit::kTrain);
  const engine::FashionMnist test_set(directory, engine::FashionMnistSplit::kTest);

  engine::Generator generator(1);
  auto model = make_mlp(generator);
  engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
  BatchLoader train_loader(train_set, {.batch_size = 64, .seed = 1, .num_workers = 1});
  BatchLoader test_loader(test_set, {.batch_size = 500, .shuffle = false});
  StepBudget budget{.max_steps = 300};

  const EpochStats stats = train_epoch(*model, optimizer, train_loader, budget);
  ASSERT_EQ(stats.step_losses.size(), 300u);
  const std::span<const float> losses(stats.step_losses);
  const double early = mean_of(losses.first(30));
  const double late = mean_of(losses.last(30));
  EXPECT_LT(late, 0.7 * early) << "loss of the first 30 steps " << early << ", last 30 " << late;

  EXPECT_GT(evaluate(*model, test_loader), 0.70);
}

}  // namespace
}  // namespace tscope::examples
