// Softmax, log-softmax (over any dim, computed over the last) and cross-entropy from logits, fused
// into one op forward and one backward.

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

Tensor over_last_dim(const Tensor& x, OpKind forward, OpKind backward, std::string_view name) {
  const Tensor dense = x.contiguous();
  Tensor out = run_op<UnaryKernel>(forward, dense);
  record_if_needed(out, name, {dense},
                   [y = out.detach(), backward](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_op<BinaryKernel>(backward, grad, y)};
                   });
  return out;
}

Tensor over_dim(const Tensor& x, std::int64_t dim, OpKind forward, OpKind backward,
                std::string_view name) {
  if (x.dim() == 0) return over_last_dim(x, forward, backward, name);
  const std::int64_t d = wrap_dim(dim, x.dim(), std::string(op_name(forward)).c_str());
  if (d == x.dim() - 1) return over_last_dim(x, forward, backward, name);
  return over_last_dim(x.transpose(d, -1), forward, backward, name).transpose(d, -1);
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t dim) {
  return over_dim(x, dim, OpKind::kSoftmax, OpKind::kSoftmaxBackward, "SoftmaxBackward");
}

Tensor log_softmax(const Tensor& x, std::int64_t dim) {
  return over_dim(x, dim, OpKind::kLogSoftmax, OpKind::kLogSoftmaxBackward, "LogSoftmaxBackward");
}

Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  if (logits.dim() != 2 || targets.dim() != 1 || targets.shape()[0] != logits.shape()[0] ||
      targets.dtype() != DType::kInt64 || logits.shape()[0] == 0) {
    throw EngineError(
        "cross_entropy: expected logits [N, C] with N > 0 and int64 targets [N], "
        "got " +
        shape_to_string(logits.shape()) + " and " + std::string(dtype_name(targets.dtype())) + " " +
        shape_to_string(targets.shape()));
  }
  auto [loss, log_sum_exp] = run_op<CrossEntropyKernel>(OpKind::kCrossEntropy, logits, targets);
  record_if_needed(loss, "CrossEntropyBackward", {logits, targets},
                   [logits = logits.detach(), targets = targets.detach(),
                    log_sum_exp = log_sum_exp](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{
                         run_op<CrossEntropyBackwardKernel>(OpKind::kCrossEntropyBackward, grad,
                                                            logits, targets, log_sum_exp),
                         Tensor()};
                   });
  return loss;
}

}  // namespace tscope::engine
