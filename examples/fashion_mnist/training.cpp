#include "training.h"

#include <chrono>
#include <numeric>
#include <utility>

#include "tscope/engine/autograd.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/transfer.h"
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

StepOutput train_step(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                      const engine::Tensor& inputs, const engine::Tensor& targets,
                      engine::distributed::DistributedDataParallel* data_parallel) {
  optimizer.zero_grad();
  StepOutput output;
  engine::Tensor loss;
  {
    const profiler::Range forward("forward");
    output.logits = model(inputs);
    loss = engine::cross_entropy(output.logits, targets);
  }
  {
    const profiler::Range backward("backward");
    loss.backward();
  }
  if (data_parallel != nullptr) data_parallel->finish();
  optimizer.step();
  output.loss = loss.item<float>();
  return output;
}

void planted_host_work(std::chrono::milliseconds duration) {
  const profiler::Range planted("planted host work");
  const auto until = std::chrono::steady_clock::now() + duration;
  // A dependent chain the compiler cannot drop, checked against the clock now and then.
  volatile double sink = 1.0;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 10000; ++i)
      sink = sink * 1.0000001 + 1e-9;
  }
}

EpochStats train_epoch(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                       BatchLoader& loader, StepBudget& budget, TrainOptions options) {
  EpochStats stats;
  std::vector<engine::Tensor> kept_outputs;
  model.train();
  const auto start = std::chrono::steady_clock::now();
  // Iterated by hand so that each step's range opens before its batch is waited for.
  const std::size_t batches = loader.batches_per_epoch();
  BatchLoader::Iterator batch;
  for (std::size_t index = 0; index < batches && !budget.exhausted(); ++index) {
    const profiler::StepRange step(budget.steps_done,
                                   static_cast<std::int64_t>(loader.options().batch_size));
    if (index == 0) {
      batch = loader.begin();
    } else {
      ++batch;
    }
    const engine::LabeledBatch on_device =
        engine::to_device(*batch, options.device, options.non_blocking_copies);
    if (options.planted_host_work.count() > 0) planted_host_work(options.planted_host_work);
    StepOutput output =
        train_step(model, optimizer, on_device.inputs, on_device.targets, options.data_parallel);
    if (options.schedule) options.schedule->step();
    stats.step_losses.push_back(output.loss);
    stats.images += on_device.inputs.size(0);
    if (options.keep_step_outputs) kept_outputs.push_back(std::move(output.logits));
    ++budget.steps_done;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

double evaluate(engine::nn::Module& model, BatchLoader& loader, engine::Device device) {
  engine::NoGradGuard no_grad;
  model.eval();
  std::int64_t correct = 0;
  std::int64_t total = 0;
  for (auto& batch : loader) {
    const engine::Tensor inputs = engine::to_device(batch.inputs, device);
    const engine::Tensor predictions = engine::max(model(inputs), 1).indices;
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
