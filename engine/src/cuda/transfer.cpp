// Copies between the host and CUDA devices. A pinned source with non_blocking goes on the copy
// stream and the compute stream waits for it through an event, so the host returns at once. The
// copy first waits for the compute work queued before it (its destination block may have been
// freed by that work), so it overlaps the compute queued after it: a loop that moves batch N+1
// before running step N overlaps the copy with step N. The source's storage is kept until the
// copy completes, so its pinned block cannot be reused while the device still reads it.

#include <cuda_runtime_api.h>

#include <deque>
#include <memory>
#include <mutex>

#include "cross_device.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/errors.h"

namespace tscope::engine::backend {
namespace {

struct InFlightCopy {
  cudaEvent_t done = nullptr;
  std::shared_ptr<Storage> source;
};

class InFlightCopies {
 public:
  void add(cudaEvent_t done, std::shared_ptr<Storage> source) {
    std::lock_guard lock(mutex_);
    release_finished();
    copies_.push_back({done, std::move(source)});
  }

 private:
  // Copies finish in the order they were queued on one stream.
  void release_finished() {
    while (!copies_.empty()) {
      const cudaError_t status = cudaEventQuery(copies_.front().done);
      if (status == cudaErrorNotReady) {
        cudaGetLastError();
        return;
      }
      TSCOPE_CUDA_CHECK(status);
      TSCOPE_CUDA_CHECK(cudaEventDestroy(copies_.front().done));
      copies_.pop_front();
    }
  }

  std::mutex mutex_;
  std::deque<InFlightCopy> copies_;
};

InFlightCopies& in_flight_copies() {
  static auto* copies = new InFlightCopies();
  return *copies;
}

std::size_t byte_count(const Tensor& tensor) {
  return static_cast<std::size_t>(tensor.numel()) * element_size(tensor.dtype());
}

void copy_host_to_device(const Tensor& destination, const Tensor& source, bool non_blocking) {
  const Device device = destination.device();
  const std::size_t bytes = byte_count(source);
  const cudaStream_t compute = cuda::compute_stream(device);
  if (non_blocking && is_pinned_address(source.storage()->data())) {
    const cudaStream_t side = cuda::copy_stream(device);
    // The destination was allocated for the compute stream, whose earlier work may still use
    // the block's previous contents: the copy waits for that work first.
    cuda::wait_for_queued_work(side, compute);
    TSCOPE_CUDA_CHECK(cudaMemcpyAsync(destination.raw_data(), source.raw_data(), bytes,
                                      cudaMemcpyHostToDevice, side));
    cudaEvent_t copied = nullptr;
    TSCOPE_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    TSCOPE_CUDA_CHECK(cudaEventRecord(copied, side));
    TSCOPE_CUDA_CHECK(cudaStreamWaitEvent(compute, copied, 0));
    in_flight_copies().add(copied, source.storage());
    return;
  }
  TSCOPE_CUDA_CHECK(cudaMemcpyAsync(destination.raw_data(), source.raw_data(), bytes,
                                    cudaMemcpyHostToDevice, compute));
  // The host source may be freed as soon as this returns.
  TSCOPE_CUDA_CHECK(cudaStreamSynchronize(compute));
}

void copy_device_to_host(const Tensor& destination, const Tensor& source) {
  const cudaStream_t compute = cuda::compute_stream(source.device());
  TSCOPE_CUDA_CHECK(cudaMemcpyAsync(destination.raw_data(), source.raw_data(), byte_count(source),
                                    cudaMemcpyDeviceToHost, compute));
  TSCOPE_CUDA_CHECK(cudaStreamSynchronize(compute));
}

}  // namespace

void copy_between_devices(const Tensor& destination, const Tensor& source, bool non_blocking) {
  if (destination.numel() == 0) return;
  const Device to = destination.device();
  const Device from = source.device();
  if (from.is_cpu()) {
    copy_host_to_device(destination, source, non_blocking);
  } else if (to.is_cpu()) {
    copy_device_to_host(destination, source);
  } else {
    cuda::compute_stream(from);
    cuda::compute_stream(to);
    TSCOPE_CUDA_CHECK(cudaMemcpyPeer(destination.raw_data(), to.index(), source.raw_data(),
                                     from.index(), byte_count(source)));
  }
}

Allocator& pinned_host_allocator() {
  return cuda::pinned_allocator();
}

bool is_pinned_address(const void* address) {
  if (address == nullptr || !cuda_available()) return false;
  cudaPointerAttributes attributes{};
  TSCOPE_CUDA_CHECK(cudaPointerGetAttributes(&attributes, address));
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace tscope::engine::backend
