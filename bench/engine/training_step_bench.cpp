// One training step of the example's CNN at batch 64: forward, cross-entropy, backward and an
// Adam update, on a fixed batch of real-shaped random inputs so the loader is not measured.

#include <benchmark/benchmark.h>

#include "fashion_mnist/models.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/adam.h"

namespace {

using namespace tscope;

void BM_CnnTrainingStepBatch64(benchmark::State& state) {
  constexpr std::int64_t kBatch = 64;
  engine::Generator generator(0);
  auto model = examples::make_cnn(generator);
  engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
  const engine::Tensor inputs = engine::randn({kBatch, 1, 28, 28}, generator);
  std::vector<std::int64_t> labels(kBatch);
  for (std::int64_t i = 0; i < kBatch; ++i) {
    labels[static_cast<std::size_t>(i)] = i % 10;
  }
  const engine::Tensor targets = engine::from_vector(labels, {kBatch});

  for (auto _ : state) {
    optimizer.zero_grad();
    const engine::Tensor loss = engine::cross_entropy((*model)(inputs), targets);
    loss.backward();
    optimizer.step();
    benchmark::DoNotOptimize(loss.item<float>());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_CnnTrainingStepBatch64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
