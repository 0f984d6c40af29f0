#pragma once
// The training loop of the example, split into train_epoch and evaluate so that each optimizer
// step is one unit a profiler can name ("step N") and time.

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "tscope/engine/data/data_loader.h"
#include "tscope/engine/data/labeled_batch.h"
#include "tscope/engine/distributed/data_parallel.h"
#include "tscope/engine/nn/module.h"
#include "tscope/engine/optim/cosine_annealing.h"
#include "tscope/engine/optim/optimizer.h"

namespace tscope::examples {

using BatchLoader = engine::DataLoader<engine::LabeledBatch>;

struct EpochStats {
  std::vector<float> step_losses;  // cross-entropy of each step's batch, in order
  std::int64_t images = 0;
  double seconds = 0.0;

  double mean_loss() const;
  double images_per_second() const;
};

// Counts optimizer steps across epochs and caps them when a step budget is given.
struct StepBudget {
  std::int64_t steps_done = 0;
  std::optional<std::int64_t> max_steps;

  bool exhausted() const { return max_steps && steps_done >= *max_steps; }
};

struct StepOutput {
  engine::Tensor logits;  // still attached to the step's autograd graph
  float loss = 0.0f;
};

// One optimizer step on one batch: forward, cross-entropy, backward and the update, the first
// two in a "forward" range and the backward pass in a "backward" range. With `data_parallel`, the
// gradients are averaged over the ranks (its finish()) before the update.
StepOutput train_step(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                      const engine::Tensor& inputs, const engine::Tensor& targets,
                      engine::distributed::DistributedDataParallel* data_parallel = nullptr);

// Keeps the calling thread's core busy for `duration` inside a "planted host work" range: the
// extra host work of a straggler rank (the example's --slow-rank), real compute the analyzer can
// name as the cause.
void planted_host_work(std::chrono::milliseconds duration);

struct TrainOptions {
  // Where the model's parameters are; each batch is moved there before its step, asynchronously
  // (on the copy stream) when the loader pins its batches.
  engine::Device device = engine::Device::cpu();
  bool non_blocking_copies = false;
  // Keeps every step's logits, with their autograd graph, until the epoch ends: the leak of code
  // that collects outputs for end-of-epoch metrics without detaching them (batch x 10 floats per
  // step). Plants a leak for the leak analysis.
  bool keep_step_outputs = false;
  // Data-parallel training (the example's --distributed): gradients averaged over the ranks.
  engine::distributed::DistributedDataParallel* data_parallel = nullptr;
  // Host work planted in every step before its forward pass (a straggler, --slow-rank).
  std::chrono::milliseconds planted_host_work{0};
  // Stepped after each optimizer step when given: sets the next step's learning rate.
  engine::optim::CosineAnnealing* schedule = nullptr;
};

// One pass over `loader` in train mode, one optimizer step per batch, each in a "step N" range
// that also covers waiting for its batch (as PyTorch's ProfilerStep#N does); stops early when
// `budget` runs out.
EpochStats train_epoch(engine::nn::Module& model, engine::optim::Optimizer& optimizer,
                       BatchLoader& loader, StepBudget& budget, TrainOptions options = {});

// Fraction of the samples whose highest logit is their label, in eval mode without autograd, with
// the model's parameters on `device`; the model is left in train mode.
double evaluate(engine::nn::Module& model, BatchLoader& loader,
                engine::Device device = engine::Device::cpu());

}  // namespace tscope::examples
