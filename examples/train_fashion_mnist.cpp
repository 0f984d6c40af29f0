// Trains an MLP, a LeNet-style CNN or a GELU MLP on Fashion-MNIST with the tensorscope engine and
// prints, per epoch, the mean training loss, the training throughput and the test accuracy. Its
// planting switches (--decode-passes, --keep-step-outputs, the GELU MLP unfused) make the problems
// the analyzer finds happen for real; TSCOPE_CPU_MEMORY_CAP makes an out-of-memory one.

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fashion_mnist/auto_batch.h"
#include "fashion_mnist/blurred_dataset.h"
#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/data/data_file_error.h"
#include "tscope/engine/data/fashion_mnist.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/engine/optim/sgd.h"
#include "tscope/engine/out_of_memory.h"
#include "tscope/engine/transfer.h"
#include "tscope/profiler/environment.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/errors.h"

namespace {

using tscope::examples::ModelKind;

enum class OptimizerKind { kSgd, kAdam, kAdamW };

constexpr int kExitBadInput = 2;
constexpr int kExitFailure = 1;

struct Settings {
  ModelKind model = ModelKind::kMlp;
  std::string model_name = "mlp";
  int epochs = 3;
  std::optional<std::int64_t> steps;
  std::int64_t batch_size = 64;
  double learning_rate = 1e-3;
  OptimizerKind optimizer = OptimizerKind::kAdam;
  double momentum = 0.9;
  double weight_decay = 0.0;
  std::size_t workers = 2;
  std::uint64_t seed = 0;
  std::string data_dir{tscope::engine::FashionMnist::kDefaultDirectory};
  std::string trace_path;
  bool fused = false;
  std::size_t decode_passes = 0;
  bool keep_step_outputs = false;
  std::string device_name = "auto";
  bool pin_memory = false;
  bool auto_batch = false;
  bool evaluate = true;
};

std::unique_ptr<tscope::engine::optim::Optimizer> make_optimizer(
    const Settings& settings, std::vector<tscope::engine::Tensor> parameters) {
  using namespace tscope::engine::optim;
  switch (settings.optimizer) {
    case OptimizerKind::kSgd:
      return std::make_unique<Sgd>(std::move(parameters),
                                   SgdOptions{.learning_rate = settings.learning_rate,
                                              .momentum = settings.momentum,
                                              .weight_decay = settings.weight_decay});
    case OptimizerKind::kAdam:
      return std::make_unique<Adam>(std::move(parameters),
                                    AdamOptions{.learning_rate = settings.learning_rate,
                                                .weight_decay = settings.weight_decay});
    case OptimizerKind::kAdamW:
      return std::make_unique<AdamW>(std::move(parameters),
                                     AdamOptions{.learning_rate = settings.learning_rate,
                                                 .weight_decay = settings.weight_decay});
  }
  throw std::logic_error("unknown optimizer kind");
}

// --device auto is the first GPU when one answers, else the CPU.
tscope::engine::Device training_device(const Settings& settings) {
  using tscope::engine::Device;
  if (settings.device_name == "cpu") return Device::cpu();
  if (settings.device_name == "cuda") {
    tscope::engine::require_cuda_device(Device::cuda(0));
    return Device::cuda(0);
  }
  return tscope::engine::cuda_available() ? Device::cuda(0) : Device::cpu();
}

int train(const Settings& settings) {
  using namespace tscope;
  // --trace records this run; without it `tscope record -- train_fashion_mnist ...` still does.
  std::optional<profiler::Session> session;
  if (!settings.trace_path.empty()) {
    session.emplace(profiler::SessionOptions{.output = settings.trace_path});
    session->start();
  } else {
    profiler::start_environment_session();
  }
  const engine::FashionMnist train_set(settings.data_dir, engine::FashionMnistSplit::kTrain);
  const engine::FashionMnist test_set(settings.data_dir, engine::FashionMnistSplit::kTest);

  const engine::Device device = training_device(settings);
  if (settings.pin_memory && device.is_cpu()) {
    throw engine::CudaUnavailable("--pin-memory copies batches to a GPU, but training runs on the CPU");
  }
  engine::Generator generator(settings.seed);
  auto model = examples::make_model(settings.model, generator, settings.fused);
  // Parameters move before the optimizer takes its handles to them.
  engine::to_device(*model, device);
  auto optimizer = make_optimizer(settings, model->parameters());

  examples::StepBudget budget{.max_steps = settings.steps};
  double accuracy = 0.0;
  double training_seconds = 0.0;
  std::int64_t images = 0;
  const auto start = std::chrono::steady_clock::now();
  // One try at a batch size: its loaders and epochs. A try cut short by out of memory leaves the
  // model and optimizer as they were, so --auto-batch can try again at a smaller batch.
  const auto train_at = [&](std::int64_t batch) {
    const auto batch_size = static_cast<std::size_t>(batch);
    const examples::BlurredDataset blurred_train_set(train_set, settings.decode_passes);
    examples::BatchLoader train_loader(blurred_train_set, {.batch_size = batch_size,
                                                           .shuffle = true,
                                                           .seed = settings.seed,
                                                           .num_workers = settings.workers,
                                                           .pin_memory = settings.pin_memory});
    // Test batches no larger than the training batch: a batch that trains also evaluates.
    examples::BatchLoader test_loader(test_set,
                                      {.batch_size = std::min<std::size_t>(1000, batch_size),
                                       .shuffle = false,
                                       .num_workers = settings.workers});

    fmt::print(
        "model {} ({} parameters) on {}, {} training and {} test images, batch {}, {} workers\n",
        settings.model_name, model->parameter_count(), device.to_string(), train_set.size(),
        test_set.size(), batch, settings.workers);
    for (int epoch = 1; epoch <= settings.epochs && !budget.exhausted(); ++epoch) {
      const examples::EpochStats stats =
          examples::train_epoch(*model, *optimizer, train_loader, budget,
                                {.device = device,
                                 .non_blocking_copies = settings.pin_memory,
                                 .keep_step_outputs = settings.keep_step_outputs});
      if (settings.evaluate) accuracy = examples::evaluate(*model, test_loader, device);
      training_seconds += stats.seconds;
      images += stats.images;
      fmt::print(
          "epoch {}: {} steps, loss {:.4f}, {:.0f} images/s ({:.1f} s), test accuracy {:.2f}%\n",
          epoch, stats.step_losses.size(), stats.mean_loss(), stats.images_per_second(),
          stats.seconds, 100.0 * accuracy);
      std::fflush(stdout);
    }
  };
  if (settings.auto_batch) {
    const std::int64_t fitted = examples::run_halving_batch_on_oom(
        settings.batch_size, train_at, [](const engine::OutOfMemory& error, std::int64_t next) {
          fmt::print("{}; retrying with batch {}\n", error.what(), next);
          std::fflush(stdout);
        });
    fmt::print("auto batch: {} fits\n", fitted);
  } else {
    train_at(settings.batch_size);
  }
  const double wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("final: test accuracy {:.2f}% after {} steps; training {:.0f} images/s; wall {:.1f} s\n",
             100.0 * accuracy, budget.steps_done,
             training_seconds > 0.0 ? static_cast<double>(images) / training_seconds : 0.0,
             wall_seconds);
  if (session) {
    const profiler::SessionSummary summary = session->stop();
    fmt::print("trace: {} ({} events, {} dropped, {} bytes)\n", settings.trace_path,
               summary.events, summary.dropped_events, summary.bytes);
  }
  return 0;
}

// CLI11's PositiveNumber prints its bound as a 300-digit double; this says what is wanted.
const CLI::Validator kPositive(
    [](const std::string& text) {
      double value = 0.0;
      if (!CLI::detail::lexical_cast(text, value) || !(value > 0.0)) {
        return "must be a number greater than 0, got " + text;
      }
      return std::string();
    },
    "POSITIVE");

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trains a classifier on Fashion-MNIST with the tensorscope engine",
               "train_fashion_mnist"};
  Settings settings;
  const std::map<std::string, ModelKind> models{
      {"mlp", ModelKind::kMlp}, {"cnn", ModelKind::kCnn}, {"gelu-mlp", ModelKind::kGeluMlp}};
  const std::map<std::string, OptimizerKind> optimizers{{"sgd", OptimizerKind::kSgd},
                                                        {"adam", OptimizerKind::kAdam},
                                                        {"adamw", OptimizerKind::kAdamW}};
  app.add_option("--model", settings.model_name, "mlp, cnn or gelu-mlp")
      ->check(CLI::IsMember(models));
  app.add_option("--epochs", settings.epochs, "passes over the training set")
      ->check(CLI::Range(1, 1000));
  app.add_option("--steps", settings.steps, "stop after this many optimizer steps in total")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--batch-size", settings.batch_size, "images per step")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{60000}));
  app.add_option("--lr", settings.learning_rate, "learning rate")->check(kPositive);
  std::string optimizer_name = "adam";
  app.add_option("--optimizer", optimizer_name, "sgd, adam or adamw")
      ->check(CLI::IsMember(optimizers));
  app.add_option("--momentum", settings.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0));
  app.add_option("--weight-decay", settings.weight_decay, "L2 (sgd, adam) or decoupled (adamw)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--workers", settings.workers, "data loader threads (0: load in the main thread)");
  app.add_option("--seed", settings.seed, "seed of initialisation and shuffling");
  app.add_option("--data-dir", settings.data_dir, "folder with the Fashion-MNIST IDX .gz files");
  app.add_option("--trace", settings.trace_path, "record the run into this .tsc trace");
  app.add_flag("--fused", settings.fused,
               "run fused ops: each hidden linear layer and its ReLU as one op (mlp, cnn); bias, "
               "GELU and dropout as one op instead of three (gelu-mlp)");
  app.add_option("--decode-passes", settings.decode_passes,
                 "blur each training image this many times while loading (a slow loader)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  app.add_option("--device", settings.device_name, "auto (a GPU when one answers), cuda or cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_flag("--pin-memory", settings.pin_memory,
               "load batches into pinned host memory and copy them to the GPU asynchronously");
  app.add_flag("--auto-batch", settings.auto_batch,
               "on out of memory, halve the batch and try again until the steps complete");
  app.add_flag("!--no-eval", settings.evaluate,
               "skip the test-set evaluation after each epoch (short runs that probe memory or speed)");
  app.add_flag("--keep-step-outputs", settings.keep_step_outputs,
               "keep every step's logits with their autograd graph until the epoch ends (a leak)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : kExitBadInput;
  }
  settings.model = models.at(settings.model_name);
  settings.optimizer = optimizers.at(optimizer_name);
  try {
    return train(settings);
  } catch (const tscope::trace::IoError& error) {
    fmt::print(stderr, "train_fashion_mnist: cannot write the trace: {}\n", error.what());
    return kExitBadInput;
  } catch (const tscope::engine::OutOfMemory& error) {
    // The trace (closed as the session unwound) holds the out-of-memory event for the analyzer.
    fmt::print(stderr, "train_fashion_mnist: {}\n", error.what());
    return kExitFailure;
  } catch (const tscope::engine::CudaUnavailable& error) {
    fmt::print(stderr, "train_fashion_mnist: {}\n", error.what());
    return kExitBadInput;
  } catch (const tscope::engine::DataFileError& error) {
    fmt::print(stderr, "train_fashion_mnist: cannot read the dataset: {}\n", error.what());
    return kExitBadInput;
  } catch (const std::exception& error) {
    fmt::print(stderr, "train_fashion_mnist: {}\n", error.what());
    return kExitFailure;
  }
}
