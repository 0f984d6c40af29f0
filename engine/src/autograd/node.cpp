#include "tscope/engine/node.h"

#include "tscope/engine/errors.h"

namespace tscope::engine {

std::vector<Tensor> Node::apply(const Tensor& grad_output) {
  if (released_) {
    throw EngineError("backward through " + std::string(name_) +
                      " a second time: its saved tensors were freed by the first backward; pass "
                      "retain_graph=true to that backward to run it again");
  }
  std::vector<Tensor> grads = compute(grad_output);
  if (grads.size() != next_nodes_.size()) {
    throw EngineError(std::string(name_) + " returned " + std::to_string(grads.size()) +
                      " gradients for " + std::to_string(next_nodes_.size()) + " inputs");
  }
  return grads;
}

void Node::release() {
  if (release_saved()) released_ = true;
}

}  // namespace tscope::engine
