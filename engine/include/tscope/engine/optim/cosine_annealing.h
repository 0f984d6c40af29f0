#pragma once
// A cosine learning-rate schedule over a fixed number of steps, as PyTorch's CosineAnnealingLR
// (without restarts): the rate falls from the optimizer's initial one to `min_learning_rate`
// along half a cosine, so a short run ends with small, careful steps instead of the noisy ones
// a constant rate keeps taking.

#include <cstdint>

#include "tscope/engine/optim/optimizer.h"

namespace tscope::engine::optim {

class CosineAnnealing {
 public:
  // Takes the optimizer's current rate as the initial one. Throws std::invalid_argument when
  // `total_steps` is not positive or `min_learning_rate` is negative or above the initial rate.
  CosineAnnealing(Optimizer& optimizer, std::int64_t total_steps, double min_learning_rate = 0.0);

  // Called after each optimizer step: sets the rate of the next one. After `total_steps` calls
  // the rate stays at `min_learning_rate` (PyTorch's would climb back along the cosine).
  void step();

  // The rate at step `t` of the schedule (0 is the initial rate).
  double learning_rate_at(std::int64_t t) const;
  std::int64_t steps_done() const { return steps_done_; }

 private:
  Optimizer& optimizer_;
  std::int64_t total_steps_;
  double initial_learning_rate_;
  double min_learning_rate_;
  std::int64_t steps_done_ = 0;
};

}  // namespace tscope::engine::optim
