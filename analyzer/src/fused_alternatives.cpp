#include "fused_alternatives.h"

#include <algorithm>
#include <array>

namespace tscope::analyzer {
namespace {

bool chain_is(std::span<const std::string_view> names,
              std::initializer_list<std::string_view> expected) {
  return std::ranges::equal(names, expected);
}

}  // namespace

std::string fused_alternative(std::span<const std::string_view> names, bool fed_by_matmul) {
  // A linear layer's bias add and activation after its GEMM: a GEMM epilogue does both as it
  // writes the product, so the activation tensor is written once and never re-read.
  if (fed_by_matmul && (chain_is(names, {"add", "relu"}) || chain_is(names, {"add", "gelu"}))) {
    return "the linear layer with its bias and activation fused into the matrix product: "
           "linear_activation, or the module nn::LinearActivation in place of Linear and the "
           "activation (one cuBLASLt GEMM with a RELU_BIAS or GELU_AUX_BIAS epilogue on CUDA; "
           "torch.compile does the same for PyTorch)";
  }
  // Bias, GELU and dropout (its mask drawn by bernoulli_mask_, then applied by mul).
  if (chain_is(names, {"add", "gelu", "bernoulli_mask_", "mul"}) ||
      chain_is(names, {"add", "gelu", "mul"})) {
    return "bias_gelu_dropout, or nn::BiasGeluDropout with fused = true (one pass that draws the "
           "same dropout mask)";
  }
  return {};
}

}  // namespace tscope::analyzer
