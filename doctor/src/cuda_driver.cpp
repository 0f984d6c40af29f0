#include "cuda_driver.h"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <utility>
#include <vector>

namespace tscope::doctor::detail {

// RAII holders for what the bandwidth test allocates, so a failing call frees what came before.
class PrimaryContext {
 public:
  PrimaryContext(const CudaDriver& driver, CUdevice device) : driver_(driver), device_(device) {
    driver_.check(driver_.primary_ctx_retain_(&context_, device_), "cuDevicePrimaryCtxRetain");
    try {
      driver_.check(driver_.ctx_set_current_(context_), "cuCtxSetCurrent");
    } catch (...) {
      driver_.primary_ctx_release_(device_);
      throw;
    }
  }
  ~PrimaryContext() {
    driver_.ctx_set_current_(nullptr);
    driver_.primary_ctx_release_(device_);
  }
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

 private:
  const CudaDriver& driver_;
  CUdevice device_;
  CUcontext context_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer(const CudaDriver& driver, std::size_t bytes) : driver_(driver) {
    driver_.check(driver_.mem_alloc_(&address_, bytes), "cuMemAlloc_v2");
  }
  ~DeviceBuffer() { driver_.mem_free_(address_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CUdeviceptr address() const { return address_; }

 private:
  const CudaDriver& driver_;
  CUdeviceptr address_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer(const CudaDriver& driver, std::size_t bytes) : driver_(driver) {
    driver_.check(driver_.mem_alloc_host_(&address_, bytes), "cuMemAllocHost_v2");
  }
  ~PinnedBuffer() { driver_.mem_free_host_(address_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* address() const { return address_; }

 private:
  const CudaDriver& driver_;
  void* address_ = nullptr;
};

// Symbols are named with their versioned suffix because <cuda.h> maps the plain names onto
// them with macros; dlsym sees only the exported, suffixed name.
#define TSCOPE_CUDA_SYMBOL(library, name) (library).symbol<decltype(::name)>(#name)

CudaDriver::CudaDriver(SharedLibrary library)
    : library_(std::move(library)),
      get_error_name_(TSCOPE_CUDA_SYMBOL(library_, cuGetErrorName)),
      get_error_string_(TSCOPE_CUDA_SYMBOL(library_, cuGetErrorString)),
      driver_get_version_(TSCOPE_CUDA_SYMBOL(library_, cuDriverGetVersion)),
      init_(TSCOPE_CUDA_SYMBOL(library_, cuInit)),
      device_get_count_(TSCOPE_CUDA_SYMBOL(library_, cuDeviceGetCount)),
      device_get_(TSCOPE_CUDA_SYMBOL(library_, cuDeviceGet)),
      device_get_name_(TSCOPE_CUDA_SYMBOL(library_, cuDeviceGetName)),
      device_get_attribute_(TSCOPE_CUDA_SYMBOL(library_, cuDeviceGetAttribute)),
      device_total_mem_(TSCOPE_CUDA_SYMBOL(library_, cuDeviceTotalMem_v2)),
      primary_ctx_retain_(TSCOPE_CUDA_SYMBOL(library_, cuDevicePrimaryCtxRetain)),
      primary_ctx_release_(TSCOPE_CUDA_SYMBOL(library_, cuDevicePrimaryCtxRelease_v2)),
      ctx_set_current_(TSCOPE_CUDA_SYMBOL(library_, cuCtxSetCurrent)),
      ctx_synchronize_(TSCOPE_CUDA_SYMBOL(library_, cuCtxSynchronize)),
      mem_alloc_(TSCOPE_CUDA_SYMBOL(library_, cuMemAlloc_v2)),
      mem_free_(TSCOPE_CUDA_SYMBOL(library_, cuMemFree_v2)),
      mem_alloc_host_(TSCOPE_CUDA_SYMBOL(library_, cuMemAllocHost_v2)),
      mem_free_host_(TSCOPE_CUDA_SYMBOL(library_, cuMemFreeHost)),
      memcpy_htod_(TSCOPE_CUDA_SYMBOL(library_, cuMemcpyHtoD_v2)) {}

#undef TSCOPE_CUDA_SYMBOL

void CudaDriver::check(CUresult result, const char* call) const {
  if (result == CUDA_SUCCESS) {
    return;
  }
  const char* name = nullptr;
  const char* description = nullptr;
  if (get_error_name_(result, &name) != CUDA_SUCCESS || name == nullptr) {
    name = "unrecognized CUresult";
  }
  if (get_error_string_(result, &description) != CUDA_SUCCESS || description == nullptr) {
    description = "no description";
  }
  throw CudaCallError(result, fmt::format("{} failed: {} ({}): {}", call, name,
                                          static_cast<int>(result), description));
}

CudaVersion CudaDriver::supported_cuda_version() const {
  int encoded = 0;
  check(driver_get_version_(&encoded), "cuDriverGetVersion");
  return CudaVersion::from_encoded(encoded);
}

void CudaDriver::init() const {
  check(init_(0), "cuInit");
}

int CudaDriver::device_count() const {
  int count = 0;
  check(device_get_count_(&count), "cuDeviceGetCount");
  return count;
}

DeviceReport CudaDriver::device(int index) const {
  CUdevice handle = 0;
  check(device_get_(&handle, index), "cuDeviceGet");
  DeviceReport report;
  report.index = index;
  std::array<char, 256> name{};
  check(device_get_name_(name.data(), static_cast<int>(name.size()), handle), "cuDeviceGetName");
  report.name = name.data();
  check(device_get_attribute_(&report.compute_capability.major,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle),
        "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
  check(device_get_attribute_(&report.compute_capability.minor,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle),
        "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
  std::size_t memory = 0;
  check(device_total_mem_(&memory, handle), "cuDeviceTotalMem_v2");
  report.memory_bytes = memory;
  return report;
}

BandwidthReport CudaDriver::measure_host_to_device(int index, std::size_t bytes,
                                                   int repetitions) const {
  CUdevice handle = 0;
  check(device_get_(&handle, index), "cuDeviceGet");
  const PrimaryContext context(*this, handle);
  const DeviceBuffer destination(*this, bytes);
  const PinnedBuffer pinned(*this, bytes);
  std::vector<std::byte> pageable(bytes, std::byte{1});

  const auto gb_per_s = [&](const void* source) {
    // The first copy pays for page faults and lazy mapping; it is not what steady copies cost.
    check(memcpy_htod_(destination.address(), source, bytes), "cuMemcpyHtoD_v2");
    check(ctx_synchronize_(), "cuCtxSynchronize");
    const auto start = std::chrono::steady_clock::now();
    for (int repetition = 0; repetition < repetitions; ++repetition) {
      check(memcpy_htod_(destination.address(), source, bytes), "cuMemcpyHtoD_v2");
    }
    check(ctx_synchronize_(), "cuCtxSynchronize");
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return static_cast<double>(bytes) * repetitions / elapsed.count() / 1e9;
  };

  BandwidthReport report;
  report.device = index;
  report.bytes_per_copy = bytes;
  report.pinned_gb_per_s = gb_per_s(pinned.address());
  report.pageable_gb_per_s = gb_per_s(pageable.data());
  return report;
}

}  // namespace tscope::doctor::detail
