#pragma once
// A fully connected layer with its activation fused in: activation(x W^T + b) as the one op
// linear_activation, which CUDA runs as a single cuBLASLt GEMM with the bias and activation in
// its epilogue. The fused form of Linear followed by ReLU or GELU, with the same parameters from
// the same seed, for the chains the fusion analysis reports.

#include <cstdint>

#include "tscope/engine/generator.h"
#include "tscope/engine/kernel_signatures.h"
#include "tscope/engine/nn/linear.h"

namespace tscope::engine::nn {

class LinearActivation : public Linear {
 public:
  LinearActivation(std::int64_t in_features, std::int64_t out_features, FusedActivation activation,
                   Generator& generator);

  Tensor forward(const Tensor& input) override;

  FusedActivation activation() const { return activation_; }

 private:
  FusedActivation activation_;
};

}  // namespace tscope::engine::nn
