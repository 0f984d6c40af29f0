#pragma once
// Adam (Kingma and Ba 2015) with L2 weight decay folded into the gradient, and AdamW
// (Loshchilov and Hutter 2019) with weight decay decoupled from it, as in torch.optim.

#include <cstdint>
#include <utility>
#include <vector>

#include "tscope/engine/optim/optimizer.h"

namespace tscope::engine::optim {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

class Adam : public Optimizer {
 public:
  // Step t: g = grad (+ weight_decay * p for Adam); m = b1 m + (1 - b1) g;
  // v = b2 v + (1 - b2) g^2; p = p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
  Adam(std::vector<Tensor> parameters, AdamOptions options);

  void step() override;

  std::int64_t step_count() const { return step_count_; }

 protected:
  enum class WeightDecay { kL2, kDecoupled };
  Adam(std::vector<Tensor> parameters, AdamOptions options, WeightDecay weight_decay);

 private:
  AdamOptions options_;
  WeightDecay weight_decay_;
  std::int64_t step_count_ = 0;
  std::vector<Tensor> first_moments_;  // undefined until a parameter's first step
  std::vector<Tensor> second_moments_;
};

// Adam whose weight decay shrinks the parameters directly, p = p - lr * weight_decay * p, before
// the Adam update, instead of going through the adaptive gradient scaling.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> parameters, AdamOptions options)
      : Adam(std::move(parameters), options, WeightDecay::kDecoupled) {}
};

}  // namespace tscope::engine::optim
