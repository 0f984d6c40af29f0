#pragma once
// GPU capture through CUPTI (kernels, copies, memsets, synchronization, runtime and driver calls,
// device memory) and NVML counters, written into the running session's trace. CUPTI and NVML are
// opened at run time, so a process without a driver still records host-only traces.

#include <stdexcept>
#include <string>
#include <string_view>

namespace tscope::profiler {

// GPU capture cannot run here; the message says why and what to do.
class GpuCaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The CUPTI records that cost a record per API call or per wait, chosen per run (`tscope record
// -t`, as Nsight Systems' `-t`). Kernels, copies, memsets, device memory and op correlation are
// always captured: they are what GPU capture is for. CUPTI writes an op's id only ahead of an API
// record, so without runtime or driver calls kernels keep no link to their launch or engine op.
struct GpuTraceSelection {
  bool runtime = true;          // CUDA runtime calls (the launch -> kernel flows need them)
  bool driver = false;          // driver calls, mostly the runtime's own beneath its calls
  bool synchronization = true;  // stream, event and context waits
  bool overhead = false;        // CUPTI's and the driver's own costs (buffer flushes, JIT)
};

// How `tscope record` passes the selection to the programs it runs (a list as parse_gpu_trace
// reads it); without it capture uses kDefaultGpuTrace.
inline constexpr std::string_view kGpuTraceVariable = "TSCOPE_GPU_TRACE";
inline constexpr std::string_view kDefaultGpuTrace = "runtime,sync";

// Reads a comma-separated list of `runtime`, `driver`, `sync` and `overhead`, or `none`. Throws
// GpuCaptureError naming an unknown entry and the known ones.
GpuTraceSelection parse_gpu_trace(std::string_view list);
// The selection as parse_gpu_trace reads it ("none" when empty).
std::string gpu_trace_text(const GpuTraceSelection& selection);

// Starts CUPTI activity capture in this process, at most once, with the records $TSCOPE_GPU_TRACE
// selects; GPU work launched after it returns reaches the session running then or started later.
// Throws GpuCaptureError when CUPTI, the driver or the permission to profile is missing, the build
// has no CUDA support or the selection names an unknown record.
void start_gpu_capture();

// Whether CUPTI capture runs in this process.
bool gpu_capture_running();

// What the driver calls through CUDA_INJECTION64_PATH when the program initialises CUDA: starts the
// session `tscope record` asked for (see environment.h) and GPU capture for it. Never throws: when
// GPU capture cannot run, or anything on the way throws, it prints one message to stderr and the
// program runs on, recorded host-only (or not at all when the session could not start).
void initialize_cuda_injection() noexcept;

}  // namespace tscope::profiler
