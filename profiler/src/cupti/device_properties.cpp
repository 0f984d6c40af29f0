#include "device_properties.h"

#include <cuda.h>

#include <array>

#include "runtime_library.h"
#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {
namespace {

// The driver entry points, by the names libcuda exports (cuda.h maps some to _v2 by macro).
struct DriverCalls {
  explicit DriverCalls(const RuntimeLibrary& driver)
      : init(driver.symbol<decltype(::cuInit)>("cuInit")),
        error_string(driver.symbol<decltype(::cuGetErrorString)>("cuGetErrorString")),
        device_get_count(driver.symbol<decltype(::cuDeviceGetCount)>("cuDeviceGetCount")),
        device_get(driver.symbol<decltype(::cuDeviceGet)>("cuDeviceGet")),
        device_name(driver.symbol<decltype(::cuDeviceGetName)>("cuDeviceGetName")),
        total_memory(driver.symbol<decltype(::cuDeviceTotalMem)>("cuDeviceTotalMem_v2")),
        attribute(driver.symbol<decltype(::cuDeviceGetAttribute)>("cuDeviceGetAttribute")) {}

  void check(CUresult result, const char* call) const {
    if (result == CUDA_SUCCESS) return;
    const char* text = nullptr;
    if (error_string(result, &text) != CUDA_SUCCESS || text == nullptr) text = "unknown error";
    throw GpuCaptureError(std::string(call) + " failed: " + text + " (" +
                          std::to_string(static_cast<int>(result)) + ")");
  }

  int device_attribute(CUdevice_attribute which, CUdevice device, const char* name) const {
    int value = 0;
    check(attribute(&value, which, device), name);
    return value;
  }

  decltype(&::cuInit) init;
  decltype(&::cuGetErrorString) error_string;
  decltype(&::cuDeviceGetCount) device_get_count;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDeviceGetName) device_name;
  decltype(&::cuDeviceTotalMem) total_memory;
  decltype(&::cuDeviceGetAttribute) attribute;
};

}  // namespace

std::vector<DeviceProperties> read_device_properties() {
  const RuntimeLibrary library({"libcuda.so.1"});
  const DriverCalls driver(library);
  driver.check(driver.init(0), "cuInit");
  int count = 0;
  driver.check(driver.device_get_count(&count), "cuDeviceGetCount");
  std::vector<DeviceProperties> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    driver.check(driver.device_get(&device, ordinal), "cuDeviceGet");
    DeviceProperties properties;
    properties.ordinal = ordinal;
    std::array<char, 256> name{};
    driver.check(driver.device_name(name.data(), static_cast<int>(name.size()), device),
                 "cuDeviceGetName");
    properties.name = name.data();
    std::size_t memory = 0;
    driver.check(driver.total_memory(&memory, device), "cuDeviceTotalMem");
    properties.total_memory_bytes = memory;
    properties.sm_count = driver.device_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device,
                                                  "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
    properties.sm_clock_khz = driver.device_attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device,
                                                      "cuDeviceGetAttribute(CLOCK_RATE)");
    properties.memory_clock_khz = driver.device_attribute(
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device, "cuDeviceGetAttribute(MEMORY_CLOCK_RATE)");
    properties.memory_bus_width_bits =
        driver.device_attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device,
                                "cuDeviceGetAttribute(GLOBAL_MEMORY_BUS_WIDTH)");
    properties.compute_major =
        driver.device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device,
                                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
    properties.compute_minor =
        driver.device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device,
                                "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
    devices.push_back(std::move(properties));
  }
  return devices;
}

void write_device_metadata(const std::vector<DeviceProperties>& devices, trace::TraceSink& sink) {
  for (const DeviceProperties& device : devices) {
    const std::string prefix = "device." + std::to_string(device.ordinal) + ".";
    sink.set_metadata_value(prefix + "name", device.name);
    sink.set_metadata_value(prefix + "total_memory", std::to_string(device.total_memory_bytes));
    sink.set_metadata_value(prefix + "sm_count", std::to_string(device.sm_count));
    sink.set_metadata_value(prefix + "sm_clock_khz", std::to_string(device.sm_clock_khz));
    sink.set_metadata_value(prefix + "memory_clock_khz", std::to_string(device.memory_clock_khz));
    sink.set_metadata_value(prefix + "memory_bus_width_bits",
                            std::to_string(device.memory_bus_width_bits));
    sink.set_metadata_value(
        prefix + "compute_capability",
        std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor));
  }
}

}  // namespace tscope::profiler::cupti
