#pragma once
// Stochastic gradient descent with optional momentum and L2 weight decay, following PyTorch's
// torch.optim.SGD update rule (dampening 0, no Nesterov).

#include <vector>

#include "tscope/engine/optim/optimizer.h"

namespace tscope::engine::optim {

struct SgdOptions {
  double learning_rate = 0.01;
  double momentum = 0.0;
  double weight_decay = 0.0;
};

class Sgd : public Optimizer {
 public:
  // g = grad + weight_decay * p;  b = momentum * b + g (b = g on the first step);
  // p = p - lr * (momentum ? b : g).
  Sgd(std::vector<Tensor> parameters, SgdOptions options);

  void step() override;

 private:
  SgdOptions options_;
  std::vector<Tensor> momentum_buffers_;  // undefined until a parameter's first step
};

}  // namespace tscope::engine::optim
