#include "device_synchronization.h"

#include <cuda.h>

#include <exception>

#include "runtime_library.h"

namespace tscope::profiler::cupti {
namespace {

// The driver entry points, by the names libcuda exports (cuda.h maps some to _v2 by macro).
struct DriverCalls {
  explicit DriverCalls(const RuntimeLibrary& driver)
      : device_get_count(driver.symbol<decltype(::cuDeviceGetCount)>("cuDeviceGetCount")),
        device_get(driver.symbol<decltype(::cuDeviceGet)>("cuDeviceGet")),
        primary_context_state(
            driver.symbol<decltype(::cuDevicePrimaryCtxGetState)>("cuDevicePrimaryCtxGetState")),
        primary_context_retain(
            driver.symbol<decltype(::cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain")),
        primary_context_release(
            driver.symbol<decltype(::cuDevicePrimaryCtxRelease)>("cuDevicePrimaryCtxRelease_v2")),
        context_push(driver.symbol<decltype(::cuCtxPushCurrent)>("cuCtxPushCurrent_v2")),
        context_pop(driver.symbol<decltype(::cuCtxPopCurrent)>("cuCtxPopCurrent_v2")),
        context_synchronize(driver.symbol<decltype(::cuCtxSynchronize)>("cuCtxSynchronize")) {}

  decltype(&::cuDeviceGetCount) device_get_count;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDevicePrimaryCtxGetState) primary_context_state;
  decltype(&::cuDevicePrimaryCtxRetain) primary_context_retain;
  decltype(&::cuDevicePrimaryCtxRelease) primary_context_release;
  decltype(&::cuCtxPushCurrent) context_push;
  decltype(&::cuCtxPopCurrent) context_pop;
  decltype(&::cuCtxSynchronize) context_synchronize;
};

bool synchronize_device(const DriverCalls& driver, int ordinal) {
  CUdevice device = 0;
  unsigned int flags = 0;
  int active = 0;
  if (driver.device_get(&device, ordinal) != CUDA_SUCCESS ||
      driver.primary_context_state(device, &flags, &active) != CUDA_SUCCESS || active == 0) {
    return false;
  }
  // Retained, the context cannot be destroyed under the wait by a runtime tearing down at exit.
  CUcontext context = nullptr;
  if (driver.primary_context_retain(&context, device) != CUDA_SUCCESS) return false;
  bool synchronized = false;
  if (driver.context_push(context) == CUDA_SUCCESS) {
    synchronized = driver.context_synchronize() == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    driver.context_pop(&popped);
  }
  driver.primary_context_release(device);
  return synchronized;
}

}  // namespace

int synchronize_active_devices() noexcept {
  try {
    static const RuntimeLibrary library({"libcuda.so.1"});
    static const DriverCalls driver(library);
    int devices = 0;
    if (driver.device_get_count(&devices) != CUDA_SUCCESS) return 0;
    int synchronized = 0;
    for (int ordinal = 0; ordinal < devices; ++ordinal) {
      synchronized += synchronize_device(driver, ordinal) ? 1 : 0;
    }
    return synchronized;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace tscope::profiler::cupti
