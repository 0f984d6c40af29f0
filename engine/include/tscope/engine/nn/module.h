#pragma once
// The base of every layer and model: named parameters (collected recursively, "0.weight"
// style), child modules, and the train/eval switch that layers like Dropout read.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tscope/engine/tensor.h"

namespace tscope::engine::nn {

using NamedParameter = std::pair<std::string, Tensor>;

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  virtual Tensor forward(const Tensor& input) = 0;
  Tensor operator()(const Tensor& input) { return forward(input); }

  // This module's parameters, then each child's prefixed with the child's name and a dot, in
  // registration order.
  std::vector<NamedParameter> named_parameters() const;
  std::vector<Tensor> parameters() const;
  std::int64_t parameter_count() const;

  // Sets the mode of this module and every descendant.
  void train(bool training = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

 protected:
  // Marks `value` as requiring grad and returns it; the module keeps a handle to the same tensor.
  Tensor register_parameter(std::string name, Tensor value);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module) {
    children_.emplace_back(std::move(name), module);
    return module;
  }
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const {
    return children_;
  }

 private:
  void collect_parameters(const std::string& prefix, std::vector<NamedParameter>& out) const;

  std::vector<NamedParameter> parameters_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

}  // namespace tscope::engine::nn
