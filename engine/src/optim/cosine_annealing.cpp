#include "tscope/engine/optim/cosine_annealing.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace tscope::engine::optim {

CosineAnnealing::CosineAnnealing(Optimizer& optimizer, std::int64_t total_steps,
                                 double min_learning_rate)
    : optimizer_(optimizer),
      total_steps_(total_steps),
      initial_learning_rate_(optimizer.learning_rate()),
      min_learning_rate_(min_learning_rate) {
  if (total_steps <= 0) {
    throw std::invalid_argument("cosine annealing: the step count must be positive, got " +
                                std::to_string(total_steps));
  }
  // Asked as "in range" so that NaN is out of it.
  const bool in_range = min_learning_rate >= 0.0 && min_learning_rate <= initial_learning_rate_;
  if (!in_range) {
    throw std::invalid_argument("cosine annealing: the final learning rate " +
                                std::to_string(min_learning_rate) + " must lie in [0, " +
                                std::to_string(initial_learning_rate_) + "]");
  }
}

double CosineAnnealing::learning_rate_at(std::int64_t t) const {
  const double progress = static_cast<double>(std::clamp<std::int64_t>(t, 0, total_steps_)) /
                          static_cast<double>(total_steps_);
  return min_learning_rate_ + (initial_learning_rate_ - min_learning_rate_) *
                                  (1.0 + std::cos(std::numbers::pi * progress)) / 2.0;
}

void CosineAnnealing::step() {
  ++steps_done_;
  optimizer_.set_learning_rate(learning_rate_at(steps_done_));
}

}  // namespace tscope::engine::optim
