#pragma once
// GPU capture through CUPTI (kernels, copies, memsets, synchronization, runtime and driver calls,
// device memory) and NVML counters, written into the running session's trace. CUPTI and NVML are
// opened at run time, so a process without a driver still records host-only traces.

#include <stdexcept>

namespace tscope::profiler {

// GPU capture cannot run here; the message says why and what to do.
class GpuCaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Starts CUPTI activity capture in this process, at most once; GPU work launched after it returns
// reaches the session running then or started later. Throws GpuCaptureError when CUPTI, the
// driver or the permission to profile is missing, or the build has no CUDA support.
void start_gpu_capture();

// Whether CUPTI capture runs in this process.
bool gpu_capture_running();

// What the driver calls through CUDA_INJECTION64_PATH when the program initialises CUDA: starts the
// session `tscope record` asked for (see environment.h) and GPU capture for it. Never throws: when
// GPU capture cannot run it prints one message to stderr and the program runs on, recorded
// host-only.
void initialize_cuda_injection();

}  // namespace tscope::profiler
