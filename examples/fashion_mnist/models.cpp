#include "models.h"

#include <stdexcept>

#include "tscope/engine/nn/activation.h"
#include "tscope/engine/nn/bias_gelu_dropout.h"
#include "tscope/engine/nn/conv2d.h"
#include "tscope/engine/nn/conv2d_relu.h"
#include "tscope/engine/nn/flatten.h"
#include "tscope/engine/nn/linear.h"
#include "tscope/engine/nn/linear_activation.h"
#include "tscope/engine/nn/max_pool2d.h"

namespace tscope::examples {

using engine::nn::Conv2d;
using engine::nn::Conv2dRelu;
using engine::nn::Flatten;
using engine::nn::Linear;
using engine::nn::LinearActivation;
using engine::nn::MaxPool2d;
using engine::nn::ReLU;
using engine::nn::Sequential;

namespace {

// A hidden layer: Linear then ReLU, or both as one fused op.
void add_relu_layer(Sequential& model, std::int64_t in_features, std::int64_t out_features,
                    engine::Generator& generator, bool fused) {
  if (fused) {
    model.emplace_back<LinearActivation>(in_features, out_features, engine::FusedActivation::kRelu,
                                         generator);
    return;
  }
  model.emplace_back<Linear>(in_features, out_features, generator);
  model.emplace_back<ReLU>();
}

// A convolution layer then ReLU, or both (and the bias) as one fused op.
void add_conv_relu_layer(Sequential& model, std::int64_t in_channels, std::int64_t out_channels,
                         engine::Generator& generator, engine::Conv2dOptions options, bool fused) {
  if (fused) {
    model.emplace_back<Conv2dRelu>(in_channels, out_channels, 5, generator, options);
    return;
  }
  model.emplace_back<Conv2d>(in_channels, out_channels, 5, generator, options);
  model.emplace_back<ReLU>();
}

}  // namespace

std::shared_ptr<Sequential> make_mlp(engine::Generator& generator, bool fused) {
  auto model = std::make_shared<Sequential>();
  model->emplace_back<Flatten>();
  add_relu_layer(*model, std::int64_t{28} * 28, 256, generator, fused);
  add_relu_layer(*model, 256, 128, generator, fused);
  model->emplace_back<Linear>(128, 10, generator);
  return model;
}

std::shared_ptr<Sequential> make_cnn(engine::Generator& generator, bool fused) {
  auto model = std::make_shared<Sequential>();
  add_conv_relu_layer(*model, 1, 16, generator, {.stride = 1, .padding = 2}, fused);
  model->emplace_back<MaxPool2d>(2);  // 16 x 14 x 14
  add_conv_relu_layer(*model, 16, 32, generator, {}, fused);
  model->emplace_back<MaxPool2d>(2);  // 32 x 5 x 5
  model->emplace_back<Flatten>();
  add_relu_layer(*model, std::int64_t{32} * 5 * 5, 128, generator, fused);
  model->emplace_back<Linear>(128, 10, generator);
  return model;
}

std::shared_ptr<Sequential> make_gelu_mlp(engine::Generator& generator, bool fused) {
  constexpr std::int64_t kInputs = std::int64_t{28} * 28;
  constexpr std::int64_t kHidden = 512;
  auto model = std::make_shared<Sequential>();
  model->emplace_back<Flatten>();
  model->emplace_back<Linear>(kInputs, kHidden, generator, /*with_bias=*/false);
  model->emplace_back<engine::nn::BiasGeluDropout>(
      kHidden, kInputs, generator,
      engine::nn::BiasGeluDropoutOptions{.p = 0.1, .fused = fused, .seed = generator.next_u64()});
  model->emplace_back<Linear>(kHidden, 10, generator);
  return model;
}

std::shared_ptr<Sequential> make_model(ModelKind kind, engine::Generator& generator, bool fused) {
  switch (kind) {
    case ModelKind::kMlp:
      return make_mlp(generator, fused);
    case ModelKind::kCnn:
      return make_cnn(generator, fused);
    case ModelKind::kGeluMlp:
      return make_gelu_mlp(generator, fused);
  }
  throw std::logic_error("unknown model kind");
}

}  // namespace tscope::examples
