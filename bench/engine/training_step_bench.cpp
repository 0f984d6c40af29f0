// One training step of the example's CNN at batch 64: forward, cross-entropy, backward and an
// Adam update, on a fixed batch of real-shaped random inputs so the loader is not measured.

#include <benchmark/benchmark.h>

#include "fixed_batch_cnn.h"

namespace {

void BM_CnnTrainingStepBatch64(benchmark::State& state) {
  tscope::bench::FixedBatchCnn training;
  for (auto _ : state)
    benchmark::DoNotOptimize(training.step());
  state.SetItemsProcessed(state.iterations() * tscope::bench::FixedBatchCnn::kBatch);
}
BENCHMARK(BM_CnnTrainingStepBatch64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
