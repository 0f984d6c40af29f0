// NVML is opened at run time from the driver: where it is missing (as on machines without a
// driver), opening it fails with a message naming the library, which the session stores in the
// trace instead of counters.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cupti/nvml_sampler.h"
#include "tscope/profiler/gpu_capture.h"

namespace tscope::profiler::cupti {
namespace {

TEST(NvmlSampler, MissingNvmlIsReportedByLibraryName) {
  try {
    const NvmlSampler sampler;
    GTEST_SKIP() << "NVML is installed here; this test covers machines without it";
  } catch (const GpuCaptureError& error) {
    EXPECT_NE(std::string(error.what()).find("libnvidia-ml.so.1"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tscope::profiler::cupti
