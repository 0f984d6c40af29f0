#pragma once
// GPU counters through NVML, which ships with the driver and is opened at run time: utilisation,
// memory used, SM clock and power of every device NVML sees.

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime_library.h"

namespace tscope::profiler::cupti {

struct GpuCounterSample {
  std::uint32_t device = 0;  // NVML's index, which follows PCI bus order
  std::optional<double> utilization_percent;
  std::optional<double> memory_used_bytes;
  std::optional<double> sm_clock_mhz;
  std::optional<double> power_watts;
};

class NvmlSampler {
 public:
  // Loads libnvidia-ml.so.1 and initialises NVML. Throws GpuCaptureError naming the library or
  // the NVML call and its message.
  NvmlSampler();
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // One sample per device; a counter the device does not report stays empty.
  std::vector<GpuCounterSample> sample() const;

 private:
  struct Api;

  RuntimeLibrary library_;
  const Api* api_;
  std::vector<void*> devices_;
};

}  // namespace tscope::profiler::cupti
