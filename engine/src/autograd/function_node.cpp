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
  if (leaf_->grad) {
    leaf_->grad = add(Tensor(leaf_->grad), grad_output).impl();
  } else {
    // A gradient nothing else refers to (no other handle, no view of its storage) becomes the
    // leaf's grad as it is, as PyTorch's AccumulateGrad steals it; any other is copied, so the
    // leaf never shares memory with a gradient that also flows elsewhere.
    const bool sole_owner = grad_output.impl().use_count() == 1 &&
                            grad_output.storage().use_count() == 1 && grad_output.is_contiguous();
    leaf_->grad = sole_owner ? grad_output.impl() : grad_output.clone().impl();
  }
  if (leaf_->post_accumulate_grad_hook) leaf_->post_accumulate_grad_hook(Tensor(leaf_));
  return {};
}

}  // namespace tscope::engine
