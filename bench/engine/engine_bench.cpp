// Engine (CPU) speed against references measured in the same binary: matmul against raw
// cblas_sgemm at the same sizes, elementwise add against a plain loop over preallocated memory,
// conv2d at a LeNet-sized and a larger layer, and the fused layer_norm, linear + ReLU,
// conv2d + bias + ReLU and bias + GELU + dropout against the ops they replace.
// Wall-clock time throughout, because OpenBLAS computes on worker threads that the main thread's
// CPU time does not see.

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdint>
#include <vector>

#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

void set_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOPS"] = benchmark::Counter(
      flops_per_iteration * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_MatmulEngine(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Generator generator(1);
  const Tensor a = randn({n, n}, generator);
  const Tensor b = randn({n, n}, generator);
  for (auto _ : state) {
    Tensor c = matmul(a, b);
    benchmark::DoNotOptimize(c.raw_data());
  }
  set_flops(state, 2.0 * static_cast<double>(n * n * n));
}

void BM_MatmulCblas(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  Generator generator(1);
  const std::vector<float> a = randn({n, n}, generator).to_vector<float>();
  const std::vector<float> b = randn({n, n}, generator).to_vector<float>();
  std::vector<float> c(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(n) * n * n);
}

void BM_AddEngine(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Generator generator(2);
  const Tensor a = randn({n}, generator);
  const Tensor b = randn({n}, generator);
  for (auto _ : state) {
    Tensor c = add(a, b);
    benchmark::DoNotOptimize(c.raw_data());
  }
  state.SetBytesProcessed(state.iterations() * 3 * n * static_cast<std::int64_t>(sizeof(float)));
}

void BM_AddPlainLoop(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Generator generator(2);
  const std::vector<float> a = randn({n}, generator).to_vector<float>();
  const std::vector<float> b = randn({n}, generator).to_vector<float>();
  std::vector<float> c(static_cast<std::size_t>(n));
  for (auto _ : state) {
    for (std::int64_t i = 0; i < n; ++i) {
      c[static_cast<std::size_t>(i)] =
          a[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)];
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 3 * n * static_cast<std::int64_t>(sizeof(float)));
}

// Args: batch, in channels, size, out channels, kernel, padding.
void BM_Conv2dEngine(benchmark::State& state) {
  const std::int64_t batch = state.range(0);
  const std::int64_t channels = state.range(1);
  const std::int64_t size = state.range(2);
  const std::int64_t out_channels = state.range(3);
  const std::int64_t kernel = state.range(4);
  const std::int64_t padding = state.range(5);
  Generator generator(3);
  const Tensor input = randn({batch, channels, size, size}, generator);
  const Tensor weight = randn({out_channels, channels, kernel, kernel}, generator);
  const Tensor bias = randn({out_channels}, generator);
  const std::int64_t out_size = size + 2 * padding - kernel + 1;
  for (auto _ : state) {
    Tensor out = conv2d(input, weight, bias, {.stride = 1, .padding = padding});
    benchmark::DoNotOptimize(out.raw_data());
  }
  set_flops(state, 2.0 * static_cast<double>(batch * out_channels * out_size * out_size * channels *
                                             kernel * kernel));
}

// Layer normalisation of [rows, cols] with weight and bias, forward and backward: the fused op
// against the chain of separate ops (sub, mean, mul, add, sqrt, div, mul, add) it replaced.
template <bool kFused>
void layer_norm_step(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const std::int64_t cols = state.range(1);
  Generator generator(4);
  const Tensor x = randn({rows, cols}, generator).set_requires_grad(true);
  const Tensor weight = randn({cols}, generator).set_requires_grad(true);
  const Tensor bias = randn({cols}, generator).set_requires_grad(true);
  const Tensor upstream = randn({rows, cols}, generator);
  for (auto _ : state) {
    Tensor out;
    if constexpr (kFused) {
      out = layer_norm(x, {cols}, weight, bias);
    } else {
      const Tensor centred = sub(x, mean(x, {1}, true));
      const Tensor variance = mean(mul(centred, centred), {1}, true);
      out = add(mul(div(centred, sqrt(add(variance, 1e-5))), weight), bias);
    }
    out.backward(upstream);
    benchmark::DoNotOptimize(x.grad().raw_data());
    x.set_grad(Tensor());
    weight.set_grad(Tensor());
    bias.set_grad(Tensor());
  }
  state.SetBytesProcessed(state.iterations() * 5 * rows * cols *
                          static_cast<std::int64_t>(sizeof(float)));
}

// A hidden layer's forward, relu(x W^T + b) for x [rows, features] and W [features, features]:
// the fused op (the GEMM, then bias and ReLU in one pass) against linear then relu.
template <bool kFused>
void linear_relu_forward(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const std::int64_t features = state.range(1);
  Generator generator(5);
  const Tensor x = randn({rows, features}, generator);
  const Tensor weight = randn({features, features}, generator);
  const Tensor bias = randn({features}, generator);
  for (auto _ : state) {
    const Tensor out = kFused ? linear_activation(x, weight, bias, FusedActivation::kRelu)
                              : relu(linear(x, weight, bias));
    benchmark::DoNotOptimize(out.raw_data());
  }
  set_flops(state, 2.0 * static_cast<double>(rows * features * features));
}

void BM_LinearReluFused(benchmark::State& state) {
  linear_relu_forward<true>(state);
}

void BM_LinearReluUnfused(benchmark::State& state) {
  linear_relu_forward<false>(state);
}

// A convolution layer of the example CNN, forward and backward (input, weight and bias
// gradients): relu(conv2d(x, W) + b) as the fused op (bias and ReLU applied as the GEMM's product
// moves into the output) against conv2d with its bias (an add) then relu. Args: batch, in
// channels, size, out channels, kernel, padding.
template <bool kFused>
void conv_bias_relu_step(benchmark::State& state) {
  const std::int64_t batch = state.range(0);
  const std::int64_t channels = state.range(1);
  const std::int64_t size = state.range(2);
  const std::int64_t out_channels = state.range(3);
  const std::int64_t kernel = state.range(4);
  const Conv2dOptions options{.stride = 1, .padding = state.range(5)};
  Generator generator(6);
  Tensor input = randn({batch, channels, size, size}, generator).set_requires_grad(true);
  Tensor weight =
      randn({out_channels, channels, kernel, kernel}, generator).set_requires_grad(true);
  Tensor bias = randn({out_channels}, generator).set_requires_grad(true);
  for (auto _ : state) {
    const Tensor out = kFused ? conv2d_bias_relu(input, weight, bias, options)
                              : relu(conv2d(input, weight, bias, options));
    sum(out).backward();
    benchmark::DoNotOptimize(input.grad().raw_data());
    input.set_grad(Tensor());
    weight.set_grad(Tensor());
    bias.set_grad(Tensor());
  }
}

void BM_Conv2dBiasReluFused(benchmark::State& state) {
  conv_bias_relu_step<true>(state);
}

void BM_Conv2dBiasReluUnfused(benchmark::State& state) {
  conv_bias_relu_step<false>(state);
}

// A GELU MLP's hidden activation in training, forward and backward: dropout(gelu(x + b)) as the
// fused op against add, gelu, the mask draw and the multiply. Args: rows, features.
template <bool kFused>
void bias_gelu_dropout_step(benchmark::State& state) {
  const std::int64_t rows = state.range(0);
  const std::int64_t features = state.range(1);
  Generator generator(7);
  Tensor x = randn({rows, features}, generator).set_requires_grad(true);
  Tensor bias = randn({features}, generator).set_requires_grad(true);
  Generator masks(8);
  for (auto _ : state) {
    const Tensor out = kFused ? bias_gelu_dropout(x, bias, 0.1, true, masks)
                              : dropout(gelu(add(x, bias)), 0.1, true, masks);
    sum(out).backward();
    benchmark::DoNotOptimize(x.grad().raw_data());
    x.set_grad(Tensor());
    bias.set_grad(Tensor());
  }
}

void BM_BiasGeluDropoutFused(benchmark::State& state) {
  bias_gelu_dropout_step<true>(state);
}

void BM_BiasGeluDropoutUnfused(benchmark::State& state) {
  bias_gelu_dropout_step<false>(state);
}

void BM_LayerNormFused(benchmark::State& state) {
  layer_norm_step<true>(state);
}

void BM_LayerNormComposed(benchmark::State& state) {
  layer_norm_step<false>(state);
}

BENCHMARK(BM_MatmulEngine)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MatmulCblas)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AddEngine)->Arg(1 << 20)->Arg(1 << 22)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_AddPlainLoop)
    ->Arg(1 << 20)
    ->Arg(1 << 22)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// LeNet's first layer on a batch of 64 Fashion-MNIST images, and a 64->128 3x3 layer at 32x32.
BENCHMARK(BM_Conv2dEngine)
    ->Args({64, 1, 28, 6, 5, 2})
    ->Args({32, 64, 32, 128, 3, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The example MLP's second layer at batch 512, and a wider layer where the GEMM dominates less.
BENCHMARK(BM_LinearReluFused)
    ->Args({512, 256})
    ->Args({4096, 256})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_LinearReluUnfused)
    ->Args({512, 256})
    ->Args({4096, 256})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The example CNN's two convolutions at its batch of 64.
BENCHMARK(BM_Conv2dBiasReluFused)
    ->Args({64, 1, 28, 16, 5, 2})
    ->Args({64, 16, 14, 32, 5, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Conv2dBiasReluUnfused)
    ->Args({64, 1, 28, 16, 5, 2})
    ->Args({64, 16, 14, 32, 5, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The example GELU MLP's hidden layer at its batch of 64, and a transformer block's MLP width on
// 256 tokens.
BENCHMARK(BM_BiasGeluDropoutFused)
    ->Args({64, 512})
    ->Args({256, 4096})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_BiasGeluDropoutUnfused)
    ->Args({64, 512})
    ->Args({256, 4096})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// A transformer's hidden size on a batch of 256 tokens.
BENCHMARK(BM_LayerNormFused)->Args({256, 1024})->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LayerNormComposed)->Args({256, 1024})->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tscope::engine

BENCHMARK_MAIN();
