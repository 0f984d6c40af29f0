// Training throughput of the engine on the example's models, for bench/engine/compare_pytorch.py:
// the first --steps batches of the Fashion-MNIST training set (in file order, batch --batch-size),
// loaded before timing so that only forward, cross-entropy, backward and the Adam update are
// timed, as bench/engine/torch_throughput.py times them in PyTorch. Prints
// "images_per_second <value>" (wall clock) and "images_per_cpu_second <value>" (the process's CPU
// time, all threads: at one thread the figure a busy machine disturbs least). Under
// `tscope record` the run is profiled.

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <exception>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "tscope/engine/data/data_file_error.h"
#include "tscope/engine/data/fashion_mnist.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/profiler/environment.h"
#include "tscope/profiler/record.h"

namespace {

using namespace tscope;

struct Settings {
  examples::ModelKind model = examples::ModelKind::kCnn;
  std::int64_t steps = 100;
  std::int64_t warmup = 10;
  std::int64_t batch_size = 64;
  bool fused = false;
  std::string data_dir{engine::FashionMnist::kDefaultDirectory};
};

int run(const Settings& settings) {
  // `tscope record -- engine_throughput ...` profiles the run, for `tscope analyze`.
  tscope::profiler::start_environment_session();
  const engine::FashionMnist train_set(settings.data_dir, engine::FashionMnistSplit::kTrain);
  const auto batches_needed = static_cast<std::size_t>(settings.warmup + settings.steps);
  const auto batch = static_cast<std::size_t>(settings.batch_size);
  if (batches_needed * batch > train_set.size()) {
    fmt::print(stderr, "engine_throughput: {} batches of {} exceed the {} training images\n",
               batches_needed, batch, train_set.size());
    return 2;
  }
  std::vector<engine::LabeledBatch> batches;
  for (std::size_t b = 0; b < batches_needed; ++b) {
    std::vector<std::size_t> indices(batch);
    std::iota(indices.begin(), indices.end(), b * batch);
    batches.push_back(train_set.load_batch(indices));
  }
  engine::Generator generator(0);
  auto model = examples::make_model(settings.model, generator, settings.fused);
  engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
  const auto step = [&](const engine::LabeledBatch& labeled) {
    const profiler::StepRange step_range(optimizer.step_count(), settings.batch_size);
    return examples::train_step(*model, optimizer, labeled.inputs, labeled.targets).loss;
  };
  for (std::int64_t i = 0; i < settings.warmup; ++i)
    step(batches[static_cast<std::size_t>(i)]);
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  for (std::size_t i = static_cast<std::size_t>(settings.warmup); i < batches.size(); ++i)
    step(batches[i]);
  const double cpu_seconds =
      static_cast<double>(std::clock() - cpu_start) / static_cast<double>(CLOCKS_PER_SEC);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto images = static_cast<double>(settings.steps * settings.batch_size);
  fmt::print("images_per_second {:.1f}\nimages_per_cpu_second {:.1f}\n", images / seconds,
             images / cpu_seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times training steps of the example's models on preloaded Fashion-MNIST batches",
               "engine_throughput"};
  Settings settings;
  const std::map<std::string, tscope::examples::ModelKind> models{
      {"cnn", tscope::examples::ModelKind::kCnn}, {"mlp", tscope::examples::ModelKind::kMlp}};
  std::string model_name = "cnn";
  app.add_option("--model", model_name, "cnn or mlp")->check(CLI::IsMember(models));
  app.add_option("--steps", settings.steps, "timed steps")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", settings.warmup, "untimed steps first")->check(CLI::Range(0, 100000));
  app.add_option("--batch-size", settings.batch_size, "images per step")
      ->check(CLI::Range(1, 60000));
  app.add_flag("--fused", settings.fused,
               "the models' fused ops: linear + ReLU (mlp, cnn), convolution + bias + ReLU (cnn)");
  app.add_option("--data-dir", settings.data_dir, "folder with the Fashion-MNIST IDX .gz files");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  settings.model = models.at(model_name);
  try {
    return run(settings);
  } catch (const tscope::engine::DataFileError& error) {
    fmt::print(stderr, "engine_throughput: cannot read the dataset: {}\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    fmt::print(stderr, "engine_throughput: {}\n", error.what());
    return 1;
  }
}
