#pragma once
// A chain of modules applied in order; children are named "0", "1", ..., so parameters read
// "0.weight", "2.bias" as in PyTorch.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "tscope/engine/nn/module.h"

namespace tscope::engine::nn {

class Sequential : public Module {
 public:
  Sequential() = default;

  template <typename ModuleType>
  std::shared_ptr<ModuleType> push_back(std::shared_ptr<ModuleType> module) {
    return register_module(std::to_string(children().size()), std::move(module));
  }
  template <typename ModuleType, typename... Args>
  std::shared_ptr<ModuleType> emplace_back(Args&&... args) {
    return push_back(std::make_shared<ModuleType>(std::forward<Args>(args)...));
  }

  Tensor forward(const Tensor& input) override;

  std::size_t size() const { return children().size(); }
  Module& operator[](std::size_t index) const { return *children().at(index).second; }
};

}  // namespace tscope::engine::nn
