#include "nvml_sampler.h"

#include <memory>
#include <string>

#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {
namespace {

// nvml.h is not part of every toolkit install, so the few entry points used are declared here
// with its signatures: nvmlReturn_t is an int-sized enum (NVML_SUCCESS is 0), nvmlDevice_t an
// opaque pointer, NVML_CLOCK_SM is 1, power is in milliwatts.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace

struct NvmlSampler::Api {
  explicit Api(const RuntimeLibrary& library)
      : init(library.symbol<NvmlReturn()>("nvmlInit_v2")),
        shutdown(library.symbol<NvmlReturn()>("nvmlShutdown")),
        error_string(library.symbol<const char*(NvmlReturn)>("nvmlErrorString")),
        device_count(library.symbol<NvmlReturn(unsigned int*)>("nvmlDeviceGetCount_v2")),
        device_handle(
            library.symbol<NvmlReturn(unsigned int, NvmlDevice*)>("nvmlDeviceGetHandleByIndex_v2")),
        utilization(library.symbol<NvmlReturn(NvmlDevice, NvmlUtilization*)>(
            "nvmlDeviceGetUtilizationRates")),
        memory(library.symbol<NvmlReturn(NvmlDevice, NvmlMemory*)>("nvmlDeviceGetMemoryInfo")),
        clock(library.symbol<NvmlReturn(NvmlDevice, int, unsigned int*)>("nvmlDeviceGetClockInfo")),
        power(library.symbol<NvmlReturn(NvmlDevice, unsigned int*)>("nvmlDeviceGetPowerUsage")) {}

  void check(NvmlReturn result, const char* call) const {
    if (result != kNvmlSuccess) {
      throw GpuCaptureError(std::string(call) + " failed: " + error_string(result));
    }
  }

  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*device_count)(unsigned int*);
  NvmlReturn (*device_handle)(unsigned int, NvmlDevice*);
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*);
  NvmlReturn (*power)(NvmlDevice, unsigned int*);
};

NvmlSampler::NvmlSampler() : library_({"libnvidia-ml.so.1"}) {
  // Kept for the process's life with the library (see runtime_library.h).
  static const Api* const api = new Api(library_);
  api_ = api;
  api_->check(api_->init(), "nvmlInit_v2");
  unsigned int count = 0;
  api_->check(api_->device_count(&count), "nvmlDeviceGetCount_v2");
  for (unsigned int index = 0; index < count; ++index) {
    NvmlDevice device = nullptr;
    api_->check(api_->device_handle(index, &device), "nvmlDeviceGetHandleByIndex_v2");
    devices_.push_back(device);
  }
}

NvmlSampler::~NvmlSampler() {
  api_->shutdown();
}

std::vector<GpuCounterSample> NvmlSampler::sample() const {
  std::vector<GpuCounterSample> samples;
  samples.reserve(devices_.size());
  for (std::uint32_t index = 0; index < devices_.size(); ++index) {
    NvmlDevice device = devices_[index];
    GpuCounterSample sample;
    sample.device = index;
    if (NvmlUtilization rates{}; api_->utilization(device, &rates) == kNvmlSuccess) {
      sample.utilization_percent = rates.gpu;
    }
    if (NvmlMemory memory{}; api_->memory(device, &memory) == kNvmlSuccess) {
      sample.memory_used_bytes = static_cast<double>(memory.used);
    }
    if (unsigned int mhz = 0; api_->clock(device, kNvmlClockSm, &mhz) == kNvmlSuccess) {
      sample.sm_clock_mhz = mhz;
    }
    if (unsigned int milliwatts = 0; api_->power(device, &milliwatts) == kNvmlSuccess) {
      sample.power_watts = milliwatts / 1000.0;
    }
    samples.push_back(sample);
  }
  return samples;
}

}  // namespace tscope::profiler::cupti
