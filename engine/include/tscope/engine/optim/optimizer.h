#pragma once
// The base of the optimizers: the parameters they update, the learning rate (adjustable between
// steps for schedules) and zero_grad.

#include <vector>

#include "tscope/engine/tensor.h"

namespace tscope::engine::optim {

class Optimizer {
 public:
  // Throws std::invalid_argument when a parameter is undefined or does not require grad.
  Optimizer(std::vector<Tensor> parameters, double learning_rate);
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  // Updates every parameter that has a gradient; parameters without one are left alone.
  virtual void step() = 0;

  // Drops the gradients, as PyTorch's zero_grad(set_to_none=True): the next backward writes
  // fresh ones instead of adding into stale buffers.
  void zero_grad();

  double learning_rate() const { return learning_rate_; }
  // The rate the next step() uses, as a schedule sets it. Throws std::invalid_argument when it is
  // negative or NaN.
  void set_learning_rate(double learning_rate);
  const std::vector<Tensor>& parameters() const { return parameters_; }

 private:
  std::vector<Tensor> parameters_;
  double learning_rate_;
};

}  // namespace tscope::engine::optim
