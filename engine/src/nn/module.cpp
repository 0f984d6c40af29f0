#include "tscope/engine/nn/module.h"

#include <stdexcept>

namespace tscope::engine::nn {

Tensor Module::register_parameter(std::string name, Tensor value) {
  if (!value.defined()) {
    throw std::invalid_argument("nn: parameter '" + name + "' is an undefined tensor");
  }
  value.set_requires_grad(true);
  parameters_.emplace_back(std::move(name), value);
  return value;
}

void Module::collect_parameters(const std::string& prefix, std::vector<NamedParameter>& out) const {
  for (const auto& [name, parameter] : parameters_) {
    out.emplace_back(prefix + name, parameter);
  }
  for (const auto& [name, child] : children_) {
    child->collect_parameters(prefix + name + ".", out);
  }
}

std::vector<NamedParameter> Module::named_parameters() const {
  std::vector<NamedParameter> named;
  collect_parameters("", named);
  return named;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> tensors;
  for (auto& [name, parameter] : named_parameters()) {
    tensors.push_back(std::move(parameter));
  }
  return tensors;
}

std::int64_t Module::parameter_count() const {
  std::int64_t count = 0;
  for (const auto& [name, parameter] : named_parameters()) {
    count += parameter.numel();
  }
  return count;
}

void Module::train(bool training) {
  training_ = training;
  for (auto& [name, child] : children_) {
    child->train(training);
  }
}

}  // namespace tscope::engine::nn
