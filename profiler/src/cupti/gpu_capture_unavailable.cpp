// GPU capture in a build without the CUDA toolkit (TSCOPE_CUDA=OFF): it never runs, and asking
// for it says why.

#include "gpu_session_writer.h"
#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler {

void start_gpu_capture() {
  throw GpuCaptureError(
      "this tensorscope was built without CUDA (TSCOPE_CUDA=OFF); rebuild it where the CUDA "
      "toolkit is installed to capture GPU activity");
}

bool gpu_capture_running() {
  return false;
}

struct GpuSessionWriter::State {};

GpuSessionWriter::GpuSessionWriter(trace::TraceSink& /*sink*/, std::uint32_t /*process*/) {}
GpuSessionWriter::~GpuSessionWriter() = default;
void GpuSessionWriter::drain() {}
void GpuSessionWriter::finish() {}
std::uint64_t GpuSessionWriter::events() const {
  return 0;
}

}  // namespace tscope::profiler
