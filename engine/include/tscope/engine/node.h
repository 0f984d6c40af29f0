#pragma once
// A node of the autograd graph: given the gradient of its op's output, it returns the gradient
// of each input, and points at the nodes that produced those inputs.

#include <memory>
#include <string_view>
#include <vector>

#include "tscope/engine/tensor.h"

namespace tscope::engine {

class Node {
 public:
  Node(std::string_view name, std::vector<std::shared_ptr<Node>> next_nodes)
      : name_(name), next_nodes_(std::move(next_nodes)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;

  // "MulBackward", "AccumulateGrad", ...
  std::string_view name() const { return name_; }
  // One per input of the op; null where that input needs no gradient.
  const std::vector<std::shared_ptr<Node>>& next_nodes() const { return next_nodes_; }

  // Throws EngineError when the saved tensors were already freed by an earlier backward.
  std::vector<Tensor> apply(const Tensor& grad_output);
  // Frees what the node saved for backward; a later apply() throws.
  void release();
  bool released() const { return released_; }

 protected:
  virtual std::vector<Tensor> compute(const Tensor& grad_output) = 0;
  // Returns whether anything was freed; nodes that save nothing stay usable.
  virtual bool release_saved() = 0;

 private:
  std::string_view name_;
  std::vector<std::shared_ptr<Node>> next_nodes_;
  bool released_ = false;
};

}  // namespace tscope::engine
