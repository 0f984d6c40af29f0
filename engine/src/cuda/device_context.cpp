// Device discovery happens on the first question about CUDA, never at program start, so the
// engine starts and runs on the CPU where no driver is installed.

#include "cuda/device_context.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "cuda/cuda_check.h"
#include "tscope/engine/cuda.h"

namespace tscope::engine::cuda {
namespace {

// More devices than one node holds; indices past it are refused like missing devices.
constexpr int kMaxDevices = 16;

struct Discovery {
  int count = 0;
  std::string reason;
};

const Discovery& discovery() {
  static const Discovery found = [] {
    Discovery result;
    const cudaError_t status = cudaGetDeviceCount(&result.count);
    if (status != cudaSuccess) {
      result.count = 0;
      result.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(status) + " (" +
                      cudaGetErrorString(status) + ")";
      cudaGetLastError();
    } else if (result.count == 0) {
      result.reason = "cudaGetDeviceCount: no CUDA device";
    }
    if (result.count > kMaxDevices) result.count = kMaxDevices;
    return result;
  }();
  return found;
}

// What a segment allocation returns: its memory, or nullptr where the memory is full, which is
// the caching allocator's to handle (release the cache, retry, report); any other error throws.
void* segment_or_null(cudaError_t status, void* memory) {
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  TSCOPE_CUDA_CHECK(status);
  return memory;
}

class DeviceSegmentSource final : public SegmentSource {
 public:
  explicit DeviceSegmentSource(int index) : index_(index) {}

  void* allocate_segment(std::size_t bytes) override {
    TSCOPE_CUDA_CHECK(cudaSetDevice(index_));
    void* memory = nullptr;
    const cudaError_t status = cudaMalloc(&memory, bytes);
    return segment_or_null(status, memory);
  }

  void free_segment(void* address, std::size_t /*bytes*/) override {
    TSCOPE_CUDA_CHECK(cudaSetDevice(index_));
    TSCOPE_CUDA_CHECK(cudaFree(address));
  }

  Device device() const override { return Device::cuda(index_); }

 private:
  int index_;
};

class PinnedSegmentSource final : public SegmentSource {
 public:
  void* allocate_segment(std::size_t bytes) override {
    void* memory = nullptr;
    const cudaError_t status = cudaHostAlloc(&memory, bytes, cudaHostAllocDefault);
    return segment_or_null(status, memory);
  }

  void free_segment(void* address, std::size_t /*bytes*/) override {
    TSCOPE_CUDA_CHECK(cudaFreeHost(address));
  }

  Device device() const override { return Device::cpu(); }
};

struct DeviceState {
  std::once_flag created;
  cudaStream_t copy_stream = nullptr;
  cublasHandle_t cublas = nullptr;
  std::unique_ptr<CachingAllocator> allocator;
};

// Never destroyed: tensors in static objects may free device memory after main returns.
std::array<DeviceState, kMaxDevices>& device_states() {
  static auto* states = new std::array<DeviceState, kMaxDevices>();
  return *states;
}

std::atomic<bool> allow_tf32{false};
std::atomic<bool> measure_cudnn_algorithms{false};

DeviceState& state_for(Device device) {
  require_cuda_device(device);
  DeviceState& state = device_states()[static_cast<std::size_t>(device.index())];
  std::call_once(state.created, [&] {
    TSCOPE_CUDA_CHECK(cudaSetDevice(device.index()));
    TSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&state.copy_stream, cudaStreamNonBlocking));
    TSCOPE_CUDA_CHECK(cublasCreate(&state.cublas));
    TSCOPE_CUDA_CHECK(cublasSetStream(state.cublas, nullptr));
    state.allocator = std::make_unique<CachingAllocator>(
        std::make_unique<DeviceSegmentSource>(device.index()), [] { return StreamId{0}; });
  });
  return state;
}

void make_current(Device device) {
  thread_local int current = -1;
  if (current != device.index()) {
    TSCOPE_CUDA_CHECK(cudaSetDevice(device.index()));
    current = device.index();
  }
}

}  // namespace

cudaStream_t compute_stream(Device device) {
  state_for(device);
  make_current(device);
  return nullptr;
}

cudaStream_t copy_stream(Device device) {
  DeviceState& state = state_for(device);
  make_current(device);
  return state.copy_stream;
}

void wait_for_queued_work(cudaStream_t waiter, cudaStream_t queued) {
  cudaEvent_t queued_work_done = nullptr;
  TSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&queued_work_done, cudaEventDisableTiming));
  TSCOPE_CUDA_CHECK(cudaEventRecord(queued_work_done, queued));
  TSCOPE_CUDA_CHECK(cudaStreamWaitEvent(waiter, queued_work_done, 0));
  TSCOPE_CUDA_CHECK(cudaEventDestroy(queued_work_done));
}

cublasHandle_t cublas_handle(Device device) {
  DeviceState& state = state_for(device);
  make_current(device);
  return state.cublas;
}

CachingAllocator& pinned_allocator() {
  static CachingAllocator* const allocator = [] {
    require_cuda_device(Device::cuda(0));
    return new CachingAllocator(std::make_unique<PinnedSegmentSource>());
  }();
  return *allocator;
}

}  // namespace tscope::engine::cuda

namespace tscope::engine {

bool cuda_available() {
  return cuda::discovery().count > 0;
}

int cuda_device_count() {
  return cuda::discovery().count;
}

std::string cuda_unavailable_reason() {
  return cuda::discovery().reason;
}

void require_cuda_device(Device device) {
  if (device.type() != DeviceType::kCuda) {
    throw CudaUnavailable(device.to_string() + " is not a CUDA device");
  }
  const cuda::Discovery& found = cuda::discovery();
  if (found.count == 0) {
    throw CudaUnavailable(device.to_string() +
                          " asked for, but no CUDA device can be used: " + found.reason);
  }
  if (device.index() < 0 || device.index() >= found.count) {
    throw CudaUnavailable(device.to_string() + " asked for, but only " +
                          std::to_string(found.count) + " CUDA device(s) answer");
  }
}

void cuda_synchronize(Device device) {
  cuda::compute_stream(device);
  TSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

CachingAllocator& cuda_allocator(int index) {
  return *cuda::state_for(Device::cuda(index)).allocator;
}

void set_cuda_allow_tf32(bool allow) {
  cuda::allow_tf32.store(allow, std::memory_order_relaxed);
}

bool cuda_allow_tf32() {
  return cuda::allow_tf32.load(std::memory_order_relaxed);
}

void set_cudnn_benchmark(bool measure) {
  cuda::measure_cudnn_algorithms.store(measure, std::memory_order_relaxed);
}

bool cudnn_benchmark() {
  return cuda::measure_cudnn_algorithms.load(std::memory_order_relaxed);
}

}  // namespace tscope::engine
