#include <atomic>
#include <cstdio>
#include <exception>
#include <string>

#include "tscope/profiler/environment.h"
#include "tscope/profiler/gpu_capture.h"
#include "tscope/profiler/record.h"

namespace tscope::profiler {

void initialize_cuda_injection() {
  // The driver calls its injection once per process; a program whose own profiler also received
  // the call must still say things once.
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return;
  try {
    // A child of the recorded program inherits the variables but is not meant to record.
    if (!start_environment_session()) return;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tscope: recording is off for this program: %s\n", error.what());
    return;
  }
  try {
    start_gpu_capture();
  } catch (const GpuCaptureError& error) {
    const std::string reason = std::string("GPU capture is off: ") + error.what();
    std::fprintf(stderr, "tscope: %s (the trace holds host events only)\n", reason.c_str());
    instant(reason, trace::Category::kOther, {}, NameStorage::kCopy);
  }
}

}  // namespace tscope::profiler
