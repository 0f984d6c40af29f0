#include "models.h"

#include "tscope/engine/nn/activation.h"
#include "tscope/engine/nn/conv2d.h"
#include "tscope/engine/nn/flatten.h"
#include "tscope/engine/nn/linear.h"
#include "tscope/engine/nn/max_pool2d.h"

namespace tscope::examples {

using engine::nn::Conv2d;
using engine::nn::Flatten;
using engine::nn::Linear;
using engine::nn::MaxPool2d;
using engine::nn::ReLU;
using engine::nn::Sequential;

std::shared_ptr<Sequential> make_mlp(engine::Generator& generator) {
  auto model = std::make_shared<Sequential>();
  model->emplace_back<Flatten>();
  model->emplace_back<Linear>(28 * 28, 256, generator);
  model->emplace_back<ReLU>();
  model->emplace_back<Linear>(256, 128, generator);
  model->emplace_back<ReLU>();
  model->emplace_back<Linear>(128, 10, generator);
  return model;
}

std::shared_ptr<Sequential> make_cnn(engine::Generator& generator) {
  auto model = std::make_shared<Sequential>();
  model->emplace_back<Conv2d>(1, 16, 5, generator, engine::Conv2dOptions{.stride = 1, .padding = 2});
  model->emplace_back<ReLU>();
  model->emplace_back<MaxPool2d>(2);  // 16 x 14 x 14
  model->emplace_back<Conv2d>(16, 32, 5, generator);
  model->emplace_back<ReLU>();
  model->emplace_back<MaxPool2d>(2);  // 32 x 5 x 5
  model->emplace_back<Flatten>();
  model->emplace_back<Linear>(32 * 5 * 5, 128, generator);
  model->emplace_back<ReLU>();
  model->emplace_back<Linear>(128, 10, generator);
  return model;
}

std::shared_ptr<Sequential> make_model(ModelKind kind, engine::Generator& generator) {
  return kind == ModelKind::kMlp ? make_mlp(generator) : make_cnn(generator);
}

}  // namespace tscope::examples
