#include "training.h"

#include <chrono>
#include <numeric>

#include "tscope/engine/autograd.h"
#include "tscope/engine/ops.h"
#include "tscope/profiler/record.h"

namespace tscope::examples {

double EpochStats::mean_loss() const {
  if (step_losses.empty()) {
    return 0.0;
  }
  return std::accumulate(step_losses.begin(), step_losses.end(), 0.0) /
         static_cast<double>(step_losses.size());
}

double EpochStats::images_per_second() const {
  return seconds > 0.0 ? static_cast<double>(images) / seconds : 0.0;
}

float train_step(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                 const engine::Tensor& inputs, const engine::Tensor& targets) {
  optimizer.zero_grad();
  const engine::Tensor loss = engine::cross_entropy(model(inputs), targets);
  loss.backward();
  optimizer.step();
  return loss.item<float>();
}

EpochStats train_epoch(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                       BatchLoader& loader, StepBudget& budget) {
  EpochStats stats;
  model.train();
  const auto start = std::chrono::steady_clock::now();
  for (auto& batch : loader) {
    if (budget.exhausted()) {
      break;
    }
    const profiler::StepRange step(budget.steps_done);
    stats.step_losses.push_back(train_step(model, optimizer, batch.inputs, batch.targets));
    stats.images += batch.inputs.size(0);
    ++budget.steps_done;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

double evaluate(engine::nn::Module& model, BatchLoader& loader) {
  engine::NoGradGuard no_grad;
  model.eval();
  std::int64_t correct = 0;
  std::int64_t total = 0;
  for (auto& batch : loader) {
    const engine::Tensor predictions = engine::max(model(batch.inputs), 1).indices;
    const auto predicted = predictions.to_vector<std::int64_t>();
    const auto labels = batch.targets.to_vector<std::int64_t>();
    for (std::size_t i = 0; i < labels.size(); ++i) {
      correct += predicted[i] == labels[i] ? 1 : 0;
    }
    total += static_cast<std::int64_t>(labels.size());
  }
  model.train();
  return total == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace tscope::examples
