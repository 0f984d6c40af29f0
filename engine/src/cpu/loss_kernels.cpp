// Mean negative log-likelihood over a batch of log-probabilities, with targets checked against
// the number of classes.

#include "cpu/cpu_kernels.h"
#include "cpu/strided_loop.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

void check_target(std::int64_t row, std::int64_t target, std::int64_t classes) {
  if (target < 0 || target >= classes) {
    throw EngineError("nll_loss: target " + std::to_string(target) + " of sample " +
                      std::to_string(row) + " is outside [0, " + std::to_string(classes) + ")");
  }
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs, const Tensor& targets) {
  require_dtype(log_probs, DType::kFloat32, "nll_loss");
  require_dtype(targets, DType::kInt64, "nll_loss");
  const Tensor scores = dense(log_probs);
  const Tensor labels = dense(targets);
  const std::int64_t batch = scores.shape()[0];
  const std::int64_t classes = scores.shape()[1];
  double total = 0.0;
  for (std::int64_t row = 0; row < batch; ++row) {
    const std::int64_t target = labels.data<std::int64_t>()[row];
    check_target(row, target, classes);
    total -= scores.data<float>()[row * classes + target];
  }
  Tensor out = empty({}, {.device = log_probs.device()});
  *out.data<float>() = static_cast<float>(total / static_cast<double>(batch));
  return out;
}

Tensor nll_loss_backward(const Tensor& grad, const Tensor& targets, std::int64_t classes) {
  require_dtype(grad, DType::kFloat32, "nll_loss_backward");
  require_dtype(targets, DType::kInt64, "nll_loss_backward");
  const Tensor labels = dense(targets);
  const std::int64_t batch = labels.numel();
  Tensor out = zeros({batch, classes}, {.device = grad.device()});
  const float per_sample = -*grad.data<float>() / static_cast<float>(batch);
  for (std::int64_t row = 0; row < batch; ++row) {
    const std::int64_t target = labels.data<std::int64_t>()[row];
    check_target(row, target, classes);
    out.data<float>()[row * classes + target] = per_sample;
  }
  return out;
}

}  // namespace tscope::engine::cpu
