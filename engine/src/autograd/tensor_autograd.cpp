#include "autograd/graph.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

bool Tensor::requires_grad() const {
  return impl_->requires_grad;
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
  if (impl_->grad_fn) {
    throw EngineError(
        "set_requires_grad on a tensor computed by an op; only leaves can change it (use "
        "detach() to start a new leaf)");
  }
  if (requires_grad && impl_->dtype != DType::kFloat32) {
    throw EngineError("only float32 tensors can require grad, this one is " +
                      std::string(dtype_name(impl_->dtype)));
  }
  impl_->requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const {
  return impl_->grad_fn == nullptr;
}

Tensor Tensor::grad() const {
  return Tensor(impl_->grad);
}

void Tensor::set_grad(const Tensor& grad) const {
  impl_->grad = grad.impl();
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  return impl_->grad_fn;
}

void Tensor::backward(bool retain_graph) const {
  if (numel() != 1) {
    throw EngineError("backward() without a gradient needs a one-element tensor, got shape " +
                      shape_to_string(shape()) + "; pass the gradient explicitly");
  }
  backward(ones(shape(), {.device = device()}), retain_graph);
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  run_backward(*this, gradient, retain_graph);
}

void Tensor::set_post_accumulate_grad_hook(std::function<void(const Tensor& leaf)> hook) const {
  if (hook && !is_leaf()) {
    throw EngineError(
        "a post-accumulate-grad hook needs a leaf; this tensor was computed by an op");
  }
  impl_->post_accumulate_grad_hook = std::move(hook);
}

Tensor Tensor::detach() const {
  return make_view(*this, shape(), strides(), offset());
}

}  // namespace tscope::engine
