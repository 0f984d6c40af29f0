#pragma once
// The CUDA backend as the rest of the program sees it: whether a device answers, its caching
// allocator, the TF32 switch and synchronisation. Safe on machines without a driver and in
// builds without CUDA: nothing asks the driver until one of these is called, and then
// cuda_available() is false and the rest throw CudaUnavailable.

#include <string>

#include "tscope/engine/caching_allocator.h"
#include "tscope/engine/device.h"
#include "tscope/engine/errors.h"

namespace tscope::engine {

// No CUDA device can be used: the backend is not built, there is no driver, or no device.
class CudaUnavailable : public EngineError {
 public:
  using EngineError::EngineError;
};

// A CUDA, cuBLAS, cuBLASLt or cuDNN call failed; the message names the call, file:line and the
// library's error string.
class CudaError : public EngineError {
 public:
  using EngineError::EngineError;
};

// True when the backend is built and at least one device answers. Asks the driver once.
bool cuda_available();
int cuda_device_count();
// Why no device can be used (the failing call and its error), or empty when one can.
std::string cuda_unavailable_reason();
// Throws CudaUnavailable with the reason unless `device` is a CUDA device that exists.
void require_cuda_device(Device device);

// Waits until all work queued on `device` has finished.
void cuda_synchronize(Device device);
// The allocator CUDA tensors on device `index` take their storage from.
CachingAllocator& cuda_allocator(int index);

// Matrix products may use TF32 tensor cores (about 1e-3 relative error) when on; off by default.
void set_cuda_allow_tf32(bool allow);
bool cuda_allow_tf32();

// Convolutions choose their cuDNN algorithms by timing each candidate on the first call of every
// geometry (cudnnFind*, as torch.backends.cudnn.benchmark) when on; by cuDNN's heuristics when
// off, the default. The search costs time once per geometry and its pick may differ run to run.
void set_cudnn_benchmark(bool measure);
bool cudnn_benchmark();

}  // namespace tscope::engine
