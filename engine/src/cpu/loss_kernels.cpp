// Mean negative log-likelihood over a batch of log-probabilities, and the fused cross-entropy
// from logits, with targets checked against the number of classes.

#include <cmath>

#include "cpu/cpu_kernels.h"
#include "cpu/softmax_math.h"
#include "kernel_operands.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cpu {
namespace {

// Sample `row`'s target, checked to be one of the classes.
std::int64_t checked_target(const Tensor& labels, std::int64_t row, std::int64_t classes,
                            const char* op_name) {
  const std::int64_t target = labels.data<std::int64_t>()[row];
  if (target < 0 || target >= classes) {
    throw EngineError(std::string(op_name) + ": target " + std::to_string(target) + " of sample " +
                      std::to_string(row) + " is outside [0, " + std::to_string(classes) + ")");
  }
  return target;
}

// What every loss kernel reads: scores (log-probabilities or logits) [batch, classes] and the
// targets [batch], both dense.
struct LossRows {
  Tensor scores;
  Tensor labels;
  std::int64_t batch;
  std::int64_t classes;
};

LossRows loss_rows(const Tensor& scores, const Tensor& targets) {
  Tensor dense_scores = dense(scores);
  const std::int64_t batch = dense_scores.shape()[0];
  const std::int64_t classes = dense_scores.shape()[1];
  return {std::move(dense_scores), dense(targets), batch, classes};
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs, const Tensor& targets) {
  require_dtype(log_probs, DType::kFloat32, "nll_loss");
  require_dtype(targets, DType::kInt64, "nll_loss");
  const auto [scores, labels, batch, classes] = loss_rows(log_probs, targets);
  double total = 0.0;
  for (std::int64_t row = 0; row < batch; ++row) {
    const std::int64_t target = checked_target(labels, row, classes, "nll_loss");
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
    const std::int64_t target = checked_target(labels, row, classes, "nll_loss");
    out.data<float>()[row * classes + target] = per_sample;
  }
  return out;
}

std::pair<Tensor, Tensor> cross_entropy(const Tensor& logits, const Tensor& targets) {
  require_dtype(logits, DType::kFloat32, "cross_entropy");
  require_dtype(targets, DType::kInt64, "cross_entropy");
  const auto [scores, labels, batch, classes] = loss_rows(logits, targets);
  Tensor log_sum_exp = empty({batch}, {.device = logits.device()});
  double total = 0.0;
  for (std::int64_t row = 0; row < batch; ++row) {
    const std::int64_t target = checked_target(labels, row, classes, "cross_entropy");
    const float* row_scores = scores.data<float>() + row * classes;
    const auto [row_max, log_total] = row_log_normaliser(row_scores, classes);
    // -log_softmax at the target, as log_softmax + nll_loss compute it but unrounded.
    total += log_total - static_cast<double>(row_scores[target] - row_max);
    log_sum_exp.data<float>()[row] = static_cast<float>(static_cast<double>(row_max) + log_total);
  }
  Tensor loss = empty({}, {.device = logits.device()});
  *loss.data<float>() = static_cast<float>(total / static_cast<double>(batch));
  return {std::move(loss), std::move(log_sum_exp)};
}

Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                              const Tensor& log_sum_exp) {
  check_cross_entropy_backward_operands(grad, logits, targets, log_sum_exp);
  const auto [scores, labels, batch, classes] = loss_rows(logits, targets);
  const Tensor normalisers = dense(log_sum_exp);
  Tensor out = empty(scores.shape(), {.device = logits.device()});
  const double per_sample = static_cast<double>(*grad.data<float>()) / static_cast<double>(batch);
  for (std::int64_t row = 0; row < batch; ++row) {
    const std::int64_t target = checked_target(labels, row, classes, "cross_entropy_backward");
    const float* row_scores = scores.data<float>() + row * classes;
    const double normaliser = normalisers.data<float>()[row];
    float* result = out.data<float>() + row * classes;
    for (std::int64_t i = 0; i < classes; ++i) {
      const double probability = std::exp(static_cast<double>(row_scores[i]) - normaliser);
      result[i] = static_cast<float>(per_sample * (probability - (i == target ? 1.0 : 0.0)));
    }
  }
  return out;
}

}  // namespace tscope::engine::cpu
