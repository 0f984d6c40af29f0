#include "tscope/profiler/gpu_capture.h"

#include "cupti_activity.h"

namespace tscope::profiler {

void start_gpu_capture() {
  cupti::CuptiActivity::instance().start();
}

bool gpu_capture_running() {
  return cupti::CuptiActivity::instance().running();
}

}  // namespace tscope::profiler
