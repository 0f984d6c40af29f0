#pragma once
// The node an op records: its backward function and what that function saved.

#include <memory>
#include <string_view>
#include <vector>

#include "autograd/graph.h"
#include "tscope/engine/node.h"

namespace tscope::engine {

class FunctionNode final : public Node {
 public:
  FunctionNode(std::string_view name, std::vector<std::shared_ptr<Node>> next_nodes,
               BackwardFn backward)
      : Node(name, std::move(next_nodes)), backward_(std::move(backward)) {}

 protected:
  std::vector<Tensor> compute(const Tensor& grad_output) override;
  bool release_saved() override;

 private:
  BackwardFn backward_;
};

// The sink of a leaf: adds each gradient that reaches it into the leaf's grad.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf)
      : Node("AccumulateGrad", {}), leaf_(std::move(leaf)) {}

 protected:
  std::vector<Tensor> compute(const Tensor& grad_output) override;
  // A leaf outlives any one graph, so there is nothing to free.
  bool release_saved() override { return false; }

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

}  // namespace tscope::engine
