#pragma once
// The example's CNN with Adam on one fixed batch of random 28x28 images, so a benchmark times
// the training step alone and not the data loader.

#include <cstdint>
#include <memory>
#include <vector>

#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/optim/adam.h"

namespace tscope::bench {

class FixedBatchCnn {
 public:
  static constexpr std::int64_t kBatch = 64;

  FixedBatchCnn()
      : generator_(0),
        model_(examples::make_cnn(generator_)),
        optimizer_(model_->parameters(), {.learning_rate = 1e-3}),
        inputs_(engine::randn({kBatch, 1, 28, 28}, generator_)),
        targets_(engine::from_vector(cycling_labels(), {kBatch})) {}

  // One forward, backward and Adam update; returns the loss.
  float step() { return examples::train_step(*model_, optimizer_, inputs_, targets_).loss; }

 private:
  static std::vector<std::int64_t> cycling_labels() {
    std::vector<std::int64_t> labels(kBatch);
    for (std::int64_t i = 0; i < kBatch; ++i)
      labels[static_cast<std::size_t>(i)] = i % 10;
    return labels;
  }

  engine::Generator generator_;
  std::shared_ptr<engine::nn::Sequential> model_;
  engine::optim::Adam optimizer_;
  engine::Tensor inputs_;
  engine::Tensor targets_;
};

}  // namespace tscope::bench
