#pragma once
// The bias, GELU and dropout that follow a bias-free Linear, either as three separate ops (the
// chain a profiler shows as a fusion opportunity) or as one fused op. Both draw the same dropout
// mask from the same seed, so switching between them changes speed, not results.

#include <cstdint>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

struct BiasGeluDropoutOptions {
  double p = 0.1;
  bool fused = false;
  std::uint64_t seed = 0;  // of the dropout mask stream
};

class BiasGeluDropout : public Module {
 public:
  // `fan_in` is the preceding layer's input width, which sets the bias initialisation as in
  // Linear. Throws std::invalid_argument unless 0 <= p < 1.
  BiasGeluDropout(std::int64_t features, std::int64_t fan_in, Generator& generator,
                  BiasGeluDropoutOptions options);

  Tensor forward(const Tensor& input) override;

  const Tensor& bias() const { return bias_; }

 private:
  Tensor bias_;
  BiasGeluDropoutOptions options_;
  Generator mask_generator_;
};

}  // namespace tscope::engine::nn
