// The engine's CUDA backend against references measured in the same binary: matmul against
// cuBLAS called directly, elementwise add against a device-to-device copy of the same bytes, the
// fused linear + ReLU against the two ops it replaces, and a CNN training step on the GPU against
// the same step on the CPU. Each benchmark skips, naming
// the reason, where no CUDA device answers.

#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"
#include "fashion_mnist/models.h"
#include "fashion_mnist/training.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/engine/transfer.h"

namespace tscope::bench {
namespace {

using engine::Device;
using engine::Tensor;

const Device kCuda = Device::cuda(0);
// Launches per timed iteration of the bandwidth benchmarks, so one synchronisation is a small
// part of the time.
constexpr int kLaunchesPerIteration = 10;

bool device_answers(benchmark::State& state) {
  if (engine::cuda_available()) return true;
  state.SkipWithError(("no CUDA device answers: " + engine::cuda_unavailable_reason()).c_str());
  return false;
}

void set_flop_rate(benchmark::State& state, double flops_per_iteration) {
  state.counters["TFLOP/s"] = benchmark::Counter(flops_per_iteration * 1e-12,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void set_byte_rate(benchmark::State& state, double bytes_per_iteration) {
  state.counters["GB/s"] =
      benchmark::Counter(bytes_per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Device memory outside the engine, for the references.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { TSCOPE_CUDA_CHECK(cudaMalloc(&data_, bytes)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }
  float* data() const { return static_cast<float*>(data_); }

 private:
  void* data_ = nullptr;
};

void BM_EngineMatmulCuda(benchmark::State& state) {
  if (!device_answers(state)) return;
  const std::int64_t n = state.range(0);
  engine::Generator generator(0);
  const Tensor a = engine::randn({n, n}, generator).to(kCuda);
  const Tensor b = engine::randn({n, n}, generator).to(kCuda);
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine::matmul(a, b));
    engine::cuda_synchronize(kCuda);
  }
  set_flop_rate(state, 2.0 * static_cast<double>(n) * n * n);
}
BENCHMARK(BM_EngineMatmulCuda)->Arg(1024)->Arg(4096)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_CublasSgemmDirect(benchmark::State& state) {
  if (!device_answers(state)) return;
  const int n = static_cast<int>(state.range(0));
  const std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(float);
  const DeviceBuffer a(bytes), b(bytes), c(bytes);
  TSCOPE_CUDA_CHECK(cudaMemset(a.data(), 0, bytes));
  TSCOPE_CUDA_CHECK(cudaMemset(b.data(), 0, bytes));
  cublasHandle_t handle = nullptr;
  TSCOPE_CUDA_CHECK(cublasCreate(&handle));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  for (auto _ : state) {
    TSCOPE_CUDA_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b.data(), n,
                                  a.data(), n, &beta, c.data(), n));
    TSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  TSCOPE_CUDA_CHECK(cublasDestroy(handle));
  set_flop_rate(state, 2.0 * static_cast<double>(n) * n * n);
}
BENCHMARK(BM_CublasSgemmDirect)->Arg(1024)->Arg(4096)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_EngineAddCuda(benchmark::State& state) {
  if (!device_answers(state)) return;
  const std::int64_t count = state.range(0);
  engine::Generator generator(0);
  const Tensor a = engine::randn({count}, generator).to(kCuda);
  const Tensor b = engine::randn({count}, generator).to(kCuda);
  for (auto _ : state) {
    for (int i = 0; i < kLaunchesPerIteration; ++i)
      benchmark::DoNotOptimize(engine::add(a, b));
    engine::cuda_synchronize(kCuda);
  }
  // Two operands read, one result written.
  set_byte_rate(state, kLaunchesPerIteration * 3.0 * static_cast<double>(count) * sizeof(float));
}
BENCHMARK(BM_EngineAddCuda)
    ->Arg(1 << 20)
    ->Arg(1 << 26)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_DeviceToDeviceCopy(benchmark::State& state) {
  if (!device_answers(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) * sizeof(float);
  const DeviceBuffer source(bytes), destination(bytes);
  TSCOPE_CUDA_CHECK(cudaMemset(source.data(), 0, bytes));
  for (auto _ : state) {
    for (int i = 0; i < kLaunchesPerIteration; ++i) {
      TSCOPE_CUDA_CHECK(
          cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice));
    }
    TSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // One read and one write per byte copied.
  set_byte_rate(state, kLaunchesPerIteration * 2.0 * static_cast<double>(bytes));
}
BENCHMARK(BM_DeviceToDeviceCopy)
    ->Arg(1 << 20)
    ->Arg(1 << 26)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A hidden layer's forward, x [4096, 1024] -> [4096, 1024] with ReLU: linear then relu as two ops
// (range 0), or linear_activation as one cuBLASLt GEMM with a bias + ReLU epilogue (range 1).
void BM_LinearReluCuda(benchmark::State& state) {
  if (!device_answers(state)) return;
  const bool fused = state.range(0) == 1;
  constexpr std::int64_t kRows = 4096;
  constexpr std::int64_t kFeatures = 1024;
  engine::Generator generator(0);
  const Tensor x = engine::randn({kRows, kFeatures}, generator, {.device = kCuda});
  const Tensor weight = engine::randn({kFeatures, kFeatures}, generator, {.device = kCuda});
  const Tensor bias = engine::randn({kFeatures}, generator, {.device = kCuda});
  for (auto _ : state) {
    for (int launch = 0; launch < kLaunchesPerIteration; ++launch) {
      benchmark::DoNotOptimize(
          fused ? engine::linear_activation(x, weight, bias, engine::FusedActivation::kRelu)
                : engine::relu(engine::linear(x, weight, bias)));
    }
    engine::cuda_synchronize(kCuda);
  }
  set_flop_rate(state, 2.0 * kRows * kFeatures * kFeatures * kLaunchesPerIteration);
}
BENCHMARK(BM_LinearReluCuda)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

// The example's CNN with Adam on one fixed batch of random images, on `device`.
void run_cnn_steps(benchmark::State& state, Device device) {
  const std::int64_t batch = state.range(0);
  engine::Generator generator(0);
  const auto model = examples::make_cnn(generator);
  engine::to_device(*model, device);
  engine::optim::Adam optimizer(model->parameters(), {.learning_rate = 1e-3});
  std::vector<std::int64_t> labels(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i] = static_cast<std::int64_t>(i % 10);
  const Tensor inputs = engine::randn({batch, 1, 28, 28}, generator).to(device);
  const Tensor targets = engine::from_vector(labels, {batch}).to(device);
  // One untimed step first: handles, the algorithm choices (or search) and the allocator's cache
  // are set up once per geometry, not per step.
  examples::train_step(*model, optimizer, inputs, targets);
  if (!device.is_cpu()) engine::cuda_synchronize(device);
  for (auto _ : state) {
    benchmark::DoNotOptimize(examples::train_step(*model, optimizer, inputs, targets));
    if (!device.is_cpu()) engine::cuda_synchronize(device);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void BM_CnnTrainingStepCuda(benchmark::State& state) {
  if (!device_answers(state)) return;
  run_cnn_steps(state, kCuda);
}
BENCHMARK(BM_CnnTrainingStepCuda)->Arg(64)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same step with the convolutions' algorithms from cuDNN's measured search instead of its
// heuristics (the search runs in the untimed first step).
void BM_CnnTrainingStepCudaMeasuredAlgorithms(benchmark::State& state) {
  if (!device_answers(state)) return;
  engine::set_cudnn_benchmark(true);
  run_cnn_steps(state, kCuda);
  engine::set_cudnn_benchmark(false);
}
BENCHMARK(BM_CnnTrainingStepCudaMeasuredAlgorithms)
    ->Arg(512)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_CnnTrainingStepCpu(benchmark::State& state) {
  run_cnn_steps(state, Device::cpu());
}
BENCHMARK(BM_CnnTrainingStepCpu)->Arg(64)->Arg(512)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tscope::bench

BENCHMARK_MAIN();
