#pragma once
// The Fashion-MNIST classifiers of the example: a plain MLP, a LeNet-style CNN and an MLP with
// GELU and dropout, all taking normalised [N, 1, 28, 28] images and returning [N, 10] logits.

#include <memory>
#include <string_view>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/sequential.h"

namespace tscope::examples {

enum class ModelKind { kMlp, kCnn, kGeluMlp };

// 784-256-128-10 with ReLU; with `fused`, each hidden layer's linear and ReLU run as one op
// (linear_activation: one cuBLASLt GEMM with its epilogue on CUDA).
std::shared_ptr<engine::nn::Sequential> make_mlp(engine::Generator& generator, bool fused = false);

// LeNet-style, wider than LeNet-5 because LeNet-5's 6 and 16 channels stay under 88% test
// accuracy for the first three epochs: conv5x5(1->16, pad 2) ReLU maxpool2, conv5x5(16->32) ReLU
// maxpool2, then 800-128-10 with ReLU. With `fused`, each convolution's bias and ReLU run in it
// as one op (conv2d_bias_relu) and the hidden layer is fused as in the MLP.
std::shared_ptr<engine::nn::Sequential> make_cnn(engine::Generator& generator, bool fused = false);

// 784-512-10 whose hidden layer's bias, GELU and dropout (p = 0.1) run as three separate ops,
// or as one fused op when `fused`: the same results either way, and a fusion opportunity for the
// analyzer to find in the first.
std::shared_ptr<engine::nn::Sequential> make_gelu_mlp(engine::Generator& generator, bool fused);

std::shared_ptr<engine::nn::Sequential> make_model(ModelKind kind, engine::Generator& generator,
                                                   bool fused = false);

}  // namespace tscope::examples
