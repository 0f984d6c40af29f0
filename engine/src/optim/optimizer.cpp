#include "tscope/engine/optim/optimizer.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace tscope::engine::optim {

namespace {

void check_learning_rate(double learning_rate) {
  if (!(learning_rate >= 0.0)) {
    throw std::invalid_argument("optimizer: learning rate must be non-negative, got " +
                                std::to_string(learning_rate));
  }
}

}  // namespace

Optimizer::Optimizer(std::vector<Tensor> parameters, double learning_rate)
    : parameters_(std::move(parameters)), learning_rate_(learning_rate) {
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (!parameters_[i].defined() || !parameters_[i].requires_grad()) {
      throw std::invalid_argument("optimizer: parameter " + std::to_string(i) +
                                  " is undefined or does not require grad");
    }
  }
  check_learning_rate(learning_rate);
}

void Optimizer::set_learning_rate(double learning_rate) {
  check_learning_rate(learning_rate);
  learning_rate_ = learning_rate;
}

void Optimizer::zero_grad() {
  for (const auto& parameter : parameters_) {
    parameter.set_grad(Tensor());
  }
}

}  // namespace tscope::engine::optim
