// conv2d and its two gradients through cuDNN's convolution API (NCHW float32, cross-correlation,
// as the CPU computes). The algorithm is cuDNN's heuristic pick (the *_v7 queries) or, with
// set_cudnn_benchmark(true), the fastest in a measured search (the cudnnFind*Ex calls, which time
// each candidate on the op's own buffers); either way it is chosen once per geometry and device
// and cached. FMA-only algorithms unless TF32 is allowed, so results match the CPU to fp32
// rounding by default. Workspaces come from the device's caching allocator, so they are counted
// in its statistics and traced under the op that needed them.

#include <algorithm>
#include <array>
#include <climits>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "cuda/cuda_kernels.h"
#include "cuda/cudnn_check.h"
#include "cuda/device_context.h"
#include "dispatch.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cuda {
namespace {

enum class Direction { kForward, kBackwardData, kBackwardFilter };

const char* direction_name(Direction direction) {
  switch (direction) {
    case Direction::kForward:
      return "conv2d";
    case Direction::kBackwardData:
      return "conv2d_backward_input";
    case Direction::kBackwardFilter:
      return "conv2d_backward_weight";
  }
  return "conv2d";
}

// One handle per device, on the device's compute stream; never destroyed, like the device state.
cudnnHandle_t cudnn_handle(Device device) {
  static std::mutex mutex;
  static auto* handles = new std::map<int, cudnnHandle_t>();
  const cudaStream_t stream = compute_stream(device);
  const std::lock_guard lock(mutex);
  auto [entry, inserted] = handles->try_emplace(device.index(), nullptr);
  if (inserted) {
    cudnnHandle_t handle = nullptr;
    try {
      TSCOPE_CUDA_CHECK(cudnnCreate(&handle));
      TSCOPE_CUDA_CHECK(cudnnSetStream(handle, stream));
    } catch (...) {
      handles->erase(entry);
      throw;
    }
    entry->second = handle;
  }
  return entry->second;
}

int to_cudnn_int(std::int64_t value, Direction direction) {
  if (value > INT_MAX) {
    throw EngineError(std::string(direction_name(direction)) + ": extent " + std::to_string(value) +
                      " exceeds what cuDNN accepts");
  }
  return static_cast<int>(value);
}

template <typename Handle, auto kDestroy>
struct DescriptorDeleter {
  void operator()(Handle handle) const { kDestroy(handle); }
};
template <typename Handle, auto kDestroy>
using Descriptor =
    std::unique_ptr<std::remove_pointer_t<Handle>, DescriptorDeleter<Handle, kDestroy>>;
using TensorDescriptor = Descriptor<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = Descriptor<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;

TensorDescriptor tensor_descriptor(std::array<int, 4> extents) {
  cudnnTensorDescriptor_t raw = nullptr;
  TSCOPE_CUDA_CHECK(cudnnCreateTensorDescriptor(&raw));
  TensorDescriptor descriptor(raw);
  TSCOPE_CUDA_CHECK(cudnnSetTensor4dDescriptor(raw, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, extents[0],
                                               extents[1], extents[2], extents[3]));
  return descriptor;
}

// The operands of one convolution as cuDNN sees them.
struct ConvolutionSetup {
  TensorDescriptor input;
  FilterDescriptor filter;
  ConvolutionDescriptor convolution;
  TensorDescriptor output;
};

ConvolutionSetup convolution_setup(const Conv2dGeometry& geometry, std::int64_t out_channels,
                                   Direction direction) {
  auto extent = [direction](std::int64_t value) { return to_cudnn_int(value, direction); };
  ConvolutionSetup setup;
  setup.input = tensor_descriptor({extent(geometry.batch), extent(geometry.channels),
                                   extent(geometry.height), extent(geometry.width)});
  setup.output = tensor_descriptor({extent(geometry.batch), extent(out_channels),
                                    extent(geometry.out_height), extent(geometry.out_width)});
  cudnnFilterDescriptor_t filter = nullptr;
  TSCOPE_CUDA_CHECK(cudnnCreateFilterDescriptor(&filter));
  setup.filter.reset(filter);
  TSCOPE_CUDA_CHECK(cudnnSetFilter4dDescriptor(
      filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, extent(out_channels), extent(geometry.channels),
      extent(geometry.kernel_height), extent(geometry.kernel_width)));
  cudnnConvolutionDescriptor_t convolution = nullptr;
  TSCOPE_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&convolution));
  setup.convolution.reset(convolution);
  TSCOPE_CUDA_CHECK(cudnnSetConvolution2dDescriptor(
      convolution, extent(geometry.padding), extent(geometry.padding), extent(geometry.stride),
      extent(geometry.stride), 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  return setup;
}

struct AlgorithmChoice {
  int algorithm = 0;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  std::size_t workspace_bytes = 0;
};

// The first (fastest by cuDNN's estimate) usable result; TF32 tensor-core algorithms only when
// the TF32 switch is on.
template <typename Perf>
AlgorithmChoice best_usable(const std::array<Perf, 16>& results, int count, bool allow_tf32,
                            Direction direction) {
  for (int i = 0; i < count; ++i) {
    const Perf& result = results[static_cast<std::size_t>(i)];
    if (result.status != CUDNN_STATUS_SUCCESS) continue;
    if (!allow_tf32 && result.mathType != CUDNN_FMA_MATH) continue;
    return {.algorithm = static_cast<int>(result.algo),
            .math = result.mathType,
            .workspace_bytes = result.memory};
  }
  throw EngineError(std::string(direction_name(direction)) + ": cuDNN offers no algorithm for " +
                    (allow_tf32 ? "this geometry" : "this geometry without TF32"));
}

// Device memory for cuDNN's scratch space, as a tensor the caching allocator serves.
Tensor workspace(std::size_t bytes, Device device) {
  if (bytes == 0) return Tensor();
  return empty({static_cast<std::int64_t>((bytes + sizeof(float) - 1) / sizeof(float))},
               {.device = device});
}

void* workspace_data(const Tensor& scratch) {
  return scratch.defined() ? scratch.raw_data() : nullptr;
}

// The three tensors of a convolution call in descriptor order (input, filter, output), as device
// pointers. A measured search runs the direction for real, so the one it writes is overwritten.
struct ConvolutionBuffers {
  void* input = nullptr;
  void* filter = nullptr;
  void* output = nullptr;
};

// The most workspace a measured search lets a candidate use: enough for the FFT and Winograd
// algorithms at the sizes here, and never more than the caching allocator can give.
constexpr std::size_t kSearchWorkspaceBytes = std::size_t{256} << 20;

// What the search may take without running the device or the allocator's cap out of memory (an
// out-of-memory there would be recorded as the program's own): half the free device memory and
// the room left under the cap, at most kSearchWorkspaceBytes. A candidate needing more is skipped.
std::size_t search_workspace_bytes(Device device) {
  compute_stream(device);  // makes the device current for cudaMemGetInfo
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  TSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = std::min(kSearchWorkspaceBytes, free_bytes / 2);
  const CachingAllocator& allocator = cuda_allocator(device.index());
  if (const std::optional<std::size_t> capacity = allocator.capacity()) {
    const std::size_t reserved = allocator.caching_stats().reserved_bytes;
    // Rounding and segment sizes can take up to kLargeRounding more than asked for.
    const std::size_t room = *capacity > reserved + CachingAllocator::kLargeRounding
                                 ? *capacity - reserved - CachingAllocator::kLargeRounding
                                 : 0;
    bytes = std::min(bytes, room);
  }
  return bytes;
}

AlgorithmChoice query_algorithm(cudnnHandle_t handle, const ConvolutionSetup& setup,
                                Direction direction, bool allow_tf32, bool measure,
                                const ConvolutionBuffers& buffers, Device device) {
  // The math type set on the descriptor bounds what the heuristics and the search propose.
  TSCOPE_CUDA_CHECK(cudnnSetConvolutionMathType(setup.convolution.get(),
                                                allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  const std::size_t scratch_bytes = measure ? search_workspace_bytes(device) : 0;
  const Tensor scratch = workspace(scratch_bytes, device);
  int count = 0;
  switch (direction) {
    case Direction::kForward: {
      std::array<cudnnConvolutionFwdAlgoPerf_t, 16> results{};
      if (measure) {
        TSCOPE_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
            handle, setup.input.get(), buffers.input, setup.filter.get(), buffers.filter,
            setup.convolution.get(), setup.output.get(), buffers.output,
            static_cast<int>(results.size()), &count, results.data(), workspace_data(scratch),
            scratch_bytes));
      } else {
        TSCOPE_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
            handle, setup.input.get(), setup.filter.get(), setup.convolution.get(),
            setup.output.get(), static_cast<int>(results.size()), &count, results.data()));
      }
      return best_usable(results, count, allow_tf32, direction);
    }
    case Direction::kBackwardData: {
      std::array<cudnnConvolutionBwdDataAlgoPerf_t, 16> results{};
      if (measure) {
        TSCOPE_CUDA_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
            handle, setup.filter.get(), buffers.filter, setup.output.get(), buffers.output,
            setup.convolution.get(), setup.input.get(), buffers.input,
            static_cast<int>(results.size()), &count, results.data(), workspace_data(scratch),
            scratch_bytes));
      } else {
        TSCOPE_CUDA_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
            handle, setup.filter.get(), setup.output.get(), setup.convolution.get(),
            setup.input.get(), static_cast<int>(results.size()), &count, results.data()));
      }
      return best_usable(results, count, allow_tf32, direction);
    }
    case Direction::kBackwardFilter: {
      std::array<cudnnConvolutionBwdFilterAlgoPerf_t, 16> results{};
      if (measure) {
        TSCOPE_CUDA_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            handle, setup.input.get(), buffers.input, setup.output.get(), buffers.output,
            setup.convolution.get(), setup.filter.get(), buffers.filter,
            static_cast<int>(results.size()), &count, results.data(), workspace_data(scratch),
            scratch_bytes));
      } else {
        TSCOPE_CUDA_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            handle, setup.input.get(), setup.output.get(), setup.convolution.get(),
            setup.filter.get(), static_cast<int>(results.size()), &count, results.data()));
      }
      return best_usable(results, count, allow_tf32, direction);
    }
  }
  throw EngineError("conv2d: unknown cuDNN direction");
}

using AlgorithmKey =
    std::tuple<int, Direction, bool, bool, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
               std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

// Algorithms are chosen once per geometry: a training loop repeats the same few shapes.
AlgorithmChoice cached_algorithm(cudnnHandle_t handle, const ConvolutionSetup& setup, Device device,
                                 const Conv2dGeometry& geometry, std::int64_t out_channels,
                                 Direction direction, const ConvolutionBuffers& buffers) {
  static std::mutex mutex;
  static auto* choices = new std::map<AlgorithmKey, AlgorithmChoice>();
  const bool allow_tf32 = cuda_allow_tf32();
  const bool measure = cudnn_benchmark();
  const AlgorithmKey key{device.index(),
                         direction,
                         allow_tf32,
                         measure,
                         geometry.batch,
                         geometry.channels,
                         geometry.height,
                         geometry.width,
                         geometry.kernel_height,
                         geometry.kernel_width,
                         geometry.stride,
                         geometry.padding,
                         out_channels};
  {
    const std::lock_guard lock(mutex);
    if (const auto found = choices->find(key); found != choices->end()) {
      TSCOPE_CUDA_CHECK(cudnnSetConvolutionMathType(setup.convolution.get(), found->second.math));
      return found->second;
    }
  }
  const AlgorithmChoice choice =
      query_algorithm(handle, setup, direction, allow_tf32, measure, buffers, device);
  TSCOPE_CUDA_CHECK(cudnnSetConvolutionMathType(setup.convolution.get(), choice.math));
  const std::lock_guard lock(mutex);
  choices->emplace(key, choice);
  return choice;
}

void require_float32(const Tensor& lhs, const Tensor& rhs, Direction direction) {
  if (lhs.dtype() != DType::kFloat32 || rhs.dtype() != DType::kFloat32) {
    throw EngineError(std::string(direction_name(direction)) +
                      " kernel: cuDNN convolution takes float32 tensors");
  }
}

bool any_empty(std::initializer_list<std::int64_t> extents) {
  return std::ranges::any_of(extents, [](std::int64_t extent) { return extent == 0; });
}

// The forward convolution of `input` by `weight` into a new output, through `run` (cuDNN's plain
// forward call, or its fused convolution-bias-activation call) with the algorithm chosen for the
// geometry and its workspace. A geometry with no input channel gets `without_channels`' output.
template <typename Run, typename WithoutChannels>
Tensor forward_convolution(const Tensor& input, const Tensor& weight,
                           const Conv2dGeometry& geometry, const Run& run,
                           const WithoutChannels& without_channels) {
  require_float32(input, weight, Direction::kForward);
  const std::int64_t out_channels = weight.shape()[0];
  const Device device = input.device();
  const Shape out_shape{geometry.batch, out_channels, geometry.out_height, geometry.out_width};
  if (any_empty({geometry.batch, out_channels, geometry.out_height, geometry.out_width})) {
    return empty(out_shape, {.device = device});
  }
  if (geometry.channels == 0) return without_channels(out_shape);
  const Tensor x = dense(input);
  const Tensor w = dense(weight);
  Tensor out = empty(out_shape, {.device = device});
  const cudnnHandle_t handle = cudnn_handle(device);
  const ConvolutionSetup setup = convolution_setup(geometry, out_channels, Direction::kForward);
  const AlgorithmChoice choice =
      cached_algorithm(handle, setup, device, geometry, out_channels, Direction::kForward,
                       {x.raw_data(), w.raw_data(), out.raw_data()});
  const Tensor scratch = workspace(choice.workspace_bytes, device);
  run(handle, setup, static_cast<cudnnConvolutionFwdAlgo_t>(choice.algorithm),
      workspace_data(scratch), choice.workspace_bytes, x.raw_data(), w.raw_data(), out.raw_data());
  return out;
}

using ActivationDescriptor =
    Descriptor<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;

// ReLU without NaN propagation: a NaN becomes 0, as the CPU's relu makes it.
ActivationDescriptor relu_descriptor() {
  cudnnActivationDescriptor_t raw = nullptr;
  TSCOPE_CUDA_CHECK(cudnnCreateActivationDescriptor(&raw));
  ActivationDescriptor descriptor(raw);
  TSCOPE_CUDA_CHECK(
      cudnnSetActivationDescriptor(raw, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return descriptor;
}

}  // namespace

std::pair<Tensor, Tensor> conv2d(const Tensor& input, const Tensor& weight,
                                 const Conv2dGeometry& geometry) {
  const Tensor out = forward_convolution(
      input, weight, geometry,
      [](cudnnHandle_t handle, const ConvolutionSetup& setup, cudnnConvolutionFwdAlgo_t algorithm,
         void* scratch, std::size_t scratch_bytes, const void* x, const void* w, void* y) {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        TSCOPE_CUDA_CHECK(cudnnConvolutionForward(
            handle, &alpha, setup.input.get(), x, setup.filter.get(), w, setup.convolution.get(),
            algorithm, scratch, scratch_bytes, &beta, setup.output.get(), y));
      },
      [&](const Shape& out_shape) { return zeros(out_shape, {.device = input.device()}); });
  // cuDNN's weight gradient reads the input itself.
  return {out, Tensor()};
}

// cudnnConvolutionBiasActivationForward: y = relu(conv(x, w) + 0 * z + bias), with z = y (which
// alpha2 = 0 leaves unread) and the bias as a [1, OC, 1, 1] tensor broadcast over the output.
std::pair<Tensor, Tensor> conv2d_bias_relu(const Tensor& input, const Tensor& weight,
                                           const Tensor& bias, const Conv2dGeometry& geometry) {
  if (bias.dtype() != DType::kFloat32) {
    throw EngineError("conv2d_bias_relu kernel: cuDNN convolution takes float32 tensors");
  }
  const std::int64_t out_channels = weight.shape()[0];
  if (bias.shape() != Shape{out_channels}) {
    throw EngineError("conv2d_bias_relu: expected a bias of " +
                      shape_to_string(Shape{out_channels}) + ", got " +
                      shape_to_string(bias.shape()));
  }
  const Tensor b = dense(bias);
  const Tensor out = forward_convolution(
      input, weight, geometry,
      [&](cudnnHandle_t handle, const ConvolutionSetup& setup, cudnnConvolutionFwdAlgo_t algorithm,
          void* scratch, std::size_t scratch_bytes, const void* x, const void* w, void* y) {
        const TensorDescriptor bias_setup =
            tensor_descriptor({1, to_cudnn_int(out_channels, Direction::kForward), 1, 1});
        const ActivationDescriptor relu = relu_descriptor();
        const float alpha1 = 1.0f;
        const float alpha2 = 0.0f;
        TSCOPE_CUDA_CHECK(cudnnConvolutionBiasActivationForward(
            handle, &alpha1, setup.input.get(), x, setup.filter.get(), w, setup.convolution.get(),
            algorithm, scratch, scratch_bytes, &alpha2, setup.output.get(), y, bias_setup.get(),
            b.raw_data(), relu.get(), setup.output.get(), y));
      },
      // No input channel: the convolution is 0 everywhere, so each output is relu(bias).
      [&](const Shape& out_shape) {
        const Tensor shifted =
            run_op<BinaryKernel>(OpKind::kAdd, zeros(out_shape, {.device = input.device()}),
                                 b.reshape({1, out_channels, 1, 1}));
        return run_op<UnaryKernel>(OpKind::kRelu, shifted);
      });
  return {out, Tensor()};
}

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight,
                             const Conv2dGeometry& geometry) {
  require_float32(grad, weight, Direction::kBackwardData);
  const std::int64_t out_channels = weight.shape()[0];
  const Device device = grad.device();
  const Shape input_shape{geometry.batch, geometry.channels, geometry.height, geometry.width};
  if (any_empty({geometry.batch, geometry.channels, geometry.height, geometry.width})) {
    return empty(input_shape, {.device = device});
  }
  if (any_empty({out_channels, geometry.out_height, geometry.out_width})) {
    return zeros(input_shape, {.device = device});
  }
  const Tensor dy = dense(grad);
  const Tensor w = dense(weight);
  Tensor dx = empty(input_shape, {.device = device});
  const cudnnHandle_t handle = cudnn_handle(device);
  const ConvolutionSetup setup =
      convolution_setup(geometry, out_channels, Direction::kBackwardData);
  const AlgorithmChoice choice =
      cached_algorithm(handle, setup, device, geometry, out_channels, Direction::kBackwardData,
                       {dx.raw_data(), w.raw_data(), dy.raw_data()});
  const Tensor scratch = workspace(choice.workspace_bytes, device);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TSCOPE_CUDA_CHECK(cudnnConvolutionBackwardData(
      handle, &alpha, setup.filter.get(), w.raw_data(), setup.output.get(), dy.raw_data(),
      setup.convolution.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algorithm),
      workspace_data(scratch), choice.workspace_bytes, &beta, setup.input.get(), dx.raw_data()));
  return dx;
}

Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& input,
                              const Conv2dGeometry& geometry) {
  require_float32(grad, input, Direction::kBackwardFilter);
  const std::int64_t out_channels = grad.shape()[1];
  const Device device = grad.device();
  const Shape weight_shape{out_channels, geometry.channels, geometry.kernel_height,
                           geometry.kernel_width};
  if (any_empty({out_channels, geometry.channels})) return empty(weight_shape, {.device = device});
  if (any_empty({geometry.batch, geometry.out_height, geometry.out_width})) {
    return zeros(weight_shape, {.device = device});
  }
  const Tensor dy = dense(grad);
  const Tensor x = dense(input);
  Tensor dw = empty(weight_shape, {.device = device});
  const cudnnHandle_t handle = cudnn_handle(device);
  const ConvolutionSetup setup =
      convolution_setup(geometry, out_channels, Direction::kBackwardFilter);
  const AlgorithmChoice choice =
      cached_algorithm(handle, setup, device, geometry, out_channels, Direction::kBackwardFilter,
                       {x.raw_data(), dw.raw_data(), dy.raw_data()});
  const Tensor scratch = workspace(choice.workspace_bytes, device);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TSCOPE_CUDA_CHECK(cudnnConvolutionBackwardFilter(
      handle, &alpha, setup.input.get(), x.raw_data(), setup.output.get(), dy.raw_data(),
      setup.convolution.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(choice.algorithm),
      workspace_data(scratch), choice.workspace_bytes, &beta, setup.filter.get(), dw.raw_data()));
  return dw;
}

}  // namespace tscope::engine::cuda
