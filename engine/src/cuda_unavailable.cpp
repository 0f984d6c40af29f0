// The CUDA entry points of a build without the CUDA backend: no device ever answers, and asking
// for one says why.

#include <string>

#include "cross_device.h"
#include "tscope/engine/cuda.h"

namespace tscope::engine {
namespace {

constexpr const char* kReason = "tensorscope was built without the CUDA backend (TSCOPE_CUDA=OFF)";

[[noreturn]] void unavailable(Device device) {
  throw CudaUnavailable(device.to_string() + " asked for, but " + kReason);
}

}  // namespace

bool cuda_available() {
  return false;
}
int cuda_device_count() {
  return 0;
}
std::string cuda_unavailable_reason() {
  return kReason;
}
void require_cuda_device(Device device) {
  unavailable(device);
}
void cuda_synchronize(Device device) {
  unavailable(device);
}
CachingAllocator& cuda_allocator(int index) {
  unavailable(Device::cuda(index));
}
void set_cuda_allow_tf32(bool /*allow*/) {}
bool cuda_allow_tf32() {
  return false;
}
void set_cudnn_benchmark(bool /*measure*/) {}
bool cudnn_benchmark() {
  return false;
}

namespace backend {

void copy_between_devices(const Tensor& destination, const Tensor& source, bool /*non_blocking*/) {
  unavailable(destination.device().is_cpu() ? source.device() : destination.device());
}
Allocator& pinned_host_allocator() {
  unavailable(Device::cuda(0));
}
bool is_pinned_address(const void* /*address*/) {
  return false;
}

}  // namespace backend
}  // namespace tscope::engine
