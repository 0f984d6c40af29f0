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

// LeNet-5 with ReLU and max pooling: conv5x5(1->6, pad 2) ReLU maxpool2, conv5x5(6->16) ReLU
// maxpool2, then 400-120-84-10 with ReLU. Small enough for an epoch in well under a minute on a
// two-core CPU.
std::shared_ptr<engine::nn::Sequential> make_cnn(engine::Generator& generator);

std::shared_ptr<engine::nn::Sequential> make_model(ModelKind kind, engine::Generator& generator);

}  // namespace tscope::examples
