#pragma once
// The two Fashion-MNIST classifiers of the example: a plain MLP and a LeNet-style CNN, both
// taking normalised [N, 1, 28, 28] images and returning [N, 10] logits.

#include <memory>
#include <string_view>

#include "tscope/engine/generator.h"
#include "tscope/engine/nn/sequential.h"

namespace tscope::examples {

enum class ModelKind { kMlp, kCnn };

// 784-256-128-10 with ReLU.
std::shared_ptr<engine::nn::Sequential> make_mlp(engine::Generator& generator);

// LeNet-style, wider than LeNet-5 because LeNet-5's 6 and 16 channels stay under 88% test
// accuracy for the first three epochs: conv5x5(1->16, pad 2) ReLU maxpool2, conv5x5(16->32) ReLU
// maxpool2, then 800-128-10 with ReLU.
std::shared_ptr<engine::nn::Sequential> make_cnn(engine::Generator& generator);

std::shared_ptr<engine::nn::Sequential> make_model(ModelKind kind, engine::Generator& generator);

}  // namespace tscope::examples
