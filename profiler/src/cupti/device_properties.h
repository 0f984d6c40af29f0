#pragma once
// The name and properties of each CUDA device, read through the driver API and written into the
// trace's metadata under the keys Kineto's `deviceProperties` become on import
// ("device.N.name", "device.N.total_memory", ...), so that the analyzer's roofline finds the
// device of our own GPU traces as it does for PyTorch's.

#include <cstdint>
#include <string>
#include <vector>

#include "tscope/trace/trace_sink.h"

namespace tscope::profiler::cupti {

struct DeviceProperties {
  int ordinal = 0;  // the driver's device index, which kernel records carry as their device
  std::string name;
  std::uint64_t total_memory_bytes = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

// Every device the driver sees. Throws GpuCaptureError naming the library or the driver call and
// its error string when the driver is missing or a call fails.
std::vector<DeviceProperties> read_device_properties();

// "device.N.name", "device.N.total_memory" (bytes), "device.N.sm_count",
// "device.N.sm_clock_khz", "device.N.memory_clock_khz", "device.N.memory_bus_width_bits" and
// "device.N.compute_capability" ("8.0") for each device.
void write_device_metadata(const std::vector<DeviceProperties>& devices, trace::TraceSink& sink);

}  // namespace tscope::profiler::cupti
