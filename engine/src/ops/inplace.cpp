// In-place updates of a tensor's memory. They record no history, so they are refused on
// tensors that take part in autograd while grad mode is on, and on self-overlapping views.

#include "dispatch.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {
namespace {

void check_writable(const Tensor& destination, const Tensor* source, const char* op) {
  if (destination.has_overlapping_elements()) {
    throw EngineError(std::string(op) + ": the destination of shape " +
                      shape_to_string(destination.shape()) +
                      " has elements sharing memory (an expanded view); write to a contiguous "
                      "copy instead");
  }
  const bool tracked =
      destination.requires_grad() || (source != nullptr && source->requires_grad());
  if (GradMode::is_enabled() && tracked) {
    throw EngineError(std::string(op) +
                      ": in-place update of a tensor that takes part in autograd; run it under "
                      "NoGradGuard or on detach()ed tensors");
  }
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& source) {
  check_writable(*this, &source, "copy_");
  run_op<InplaceBinaryKernel>(OpKind::kCopy, *this, source);
  return *this;
}

Tensor& Tensor::fill_(double value) {
  check_writable(*this, nullptr, "fill_");
  run_op<InplaceScalarKernel>(OpKind::kFill, *this, value);
  return *this;
}

Tensor& Tensor::add_(const Tensor& other, double alpha) {
  check_writable(*this, &other, "add_");
  run_op<InplaceBinaryScalarKernel>(OpKind::kAddInplace, *this, other, alpha);
  return *this;
}

Tensor& Tensor::mul_(double factor) {
  check_writable(*this, nullptr, "mul_");
  run_op<InplaceScalarKernel>(OpKind::kMulScalarInplace, *this, factor);
  return *this;
}

}  // namespace tscope::engine
