#include "autograd/function_node.h"

#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {

std::vector<Tensor> FunctionNode::compute(const Tensor& grad_output) {
  GradNeeds needs;
  needs.reserve(next_nodes().size());
  for (const auto& next : next_nodes())
    needs.push_back(next != nullptr);
  return backward_(grad_output, needs);
}

bool FunctionNode::release_saved() {
  backward_ = nullptr;
  return true;
}

std::vector<Tensor> AccumulateGrad::compute(const Tensor& grad_output) {
  if (grad_output.shape() != leaf_->shape) {
    throw EngineError("gradient of shape " + shape_to_string(grad_output.shape()) +
                      " for a leaf of shape " + shape_to_string(leaf_->shape));
  }
  // A copy, so the leaf never shares memory with a gradient that also flows elsewhere.
  const Tensor sum = leaf_->grad ? add(Tensor(leaf_->grad), grad_output) : grad_output.clone();
  leaf_->grad = sum.impl();
  return {};
}

}  // namespace tscope::engine
