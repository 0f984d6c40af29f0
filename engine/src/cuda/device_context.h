#pragma once
// Per-device state of the CUDA backend, created on first use: the current device of the calling
// thread, the compute and copy streams, the cuBLAS handle, the caching and pinned allocators.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "tscope/engine/caching_allocator.h"
#include "tscope/engine/device.h"

namespace tscope::engine::cuda {

// Makes `device` current on the calling thread (after checking it exists) and returns the
// stream its ops run on: the legacy default stream, which orders every op of the device.
cudaStream_t compute_stream(Device device);
// A non-blocking stream for host-to-device input copies, so they overlap compute.
cudaStream_t copy_stream(Device device);
// Makes `waiter` wait, on the device, for every piece of work `queued` holds now.
void wait_for_queued_work(cudaStream_t waiter, cudaStream_t queued);
cublasHandle_t cublas_handle(Device device);

// Host memory that the device reads at full bandwidth and copies from asynchronously.
CachingAllocator& pinned_allocator();

}  // namespace tscope::engine::cuda
