#pragma once
// The CUDA driver API (libcuda.so.1) opened at run time: the few calls the doctor needs, each
// typed from <cuda.h> and checked, failures thrown with the call's name and cuGetErrorString.

#include <cuda.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "tscope/doctor/report.h"
#include "tscope/doctor/shared_library.h"

namespace tscope::doctor::detail {

class CudaCallError : public std::runtime_error {
 public:
  CudaCallError(CUresult code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

class CudaDriver {
 public:
  static constexpr const char* kLibraryName = "libcuda.so.1";

  // Resolves every entry point up front so a driver too old to export one fails here, once.
  explicit CudaDriver(SharedLibrary library);

  CudaVersion supported_cuda_version() const;
  void init() const;
  int device_count() const;
  DeviceReport device(int index) const;
  // Times `repetitions` copies of `bytes` from pinned and from pageable host memory.
  BandwidthReport measure_host_to_device(int index, std::size_t bytes, int repetitions) const;

 private:
  friend class PrimaryContext;
  friend class DeviceBuffer;
  friend class PinnedBuffer;

  void check(CUresult result, const char* call) const;

  SharedLibrary library_;
  decltype(&::cuGetErrorName) get_error_name_;
  decltype(&::cuGetErrorString) get_error_string_;
  decltype(&::cuDriverGetVersion) driver_get_version_;
  decltype(&::cuInit) init_;
  decltype(&::cuDeviceGetCount) device_get_count_;
  decltype(&::cuDeviceGet) device_get_;
  decltype(&::cuDeviceGetName) device_get_name_;
  decltype(&::cuDeviceGetAttribute) device_get_attribute_;
  decltype(&::cuDeviceTotalMem_v2) device_total_mem_;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain_;
  decltype(&::cuDevicePrimaryCtxRelease_v2) primary_ctx_release_;
  decltype(&::cuCtxSetCurrent) ctx_set_current_;
  decltype(&::cuCtxSynchronize) ctx_synchronize_;
  decltype(&::cuMemAlloc_v2) mem_alloc_;
  decltype(&::cuMemFree_v2) mem_free_;
  decltype(&::cuMemAllocHost_v2) mem_alloc_host_;
  decltype(&::cuMemFreeHost) mem_free_host_;
  decltype(&::cuMemcpyHtoD_v2) memcpy_htod_;
};

}  // namespace tscope::doctor::detail
