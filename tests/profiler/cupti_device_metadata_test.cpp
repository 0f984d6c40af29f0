// The device properties our CUPTI capture writes into a trace survive the .tsc file under the keys
// Kineto's deviceProperties become on import, and the analyzer's roofline finds the device by
// them; without a driver or device, reading them fails with a message naming what is missing.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cupti/device_properties.h"
#include "scratch_folder.h"
#include "tscope/analyzer/device_peaks.h"
#include "tscope/profiler/gpu_capture.h"
#include "tscope/trace/trace_io.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::profiler::cupti {
namespace {

// What the driver reports for an A100 80GB SXM4 module (CUDA's deviceQuery on a DGX A100).
DeviceProperties a100_sxm4_80gb(int ordinal) {
  DeviceProperties device;
  device.ordinal = ordinal;
  device.name = "NVIDIA A100-SXM4-80GB";
  device.total_memory_bytes = 85'097'971'712;
  device.sm_count = 108;
  device.sm_clock_khz = 1'410'000;
  device.memory_clock_khz = 1'593'000;
  device.memory_bus_width_bits = 5120;
  device.compute_major = 8;
  device.compute_minor = 0;
  return device;
}

TEST(DeviceMetadata, PropertiesSurviveTheTscFileAndNameTheRooflineDevice) {
  const std::filesystem::path path = tscope::testing::scratch_path("tscope_device_metadata.tsc");
  {
    trace::TscWriter writer(path);
    write_device_metadata({a100_sxm4_80gb(0), a100_sxm4_80gb(1)}, writer);
    writer.close();
  }
  const trace::Trace loaded = trace::load_trace(path);
  std::filesystem::remove(path);
  const auto& values = loaded.metadata().values;
  EXPECT_EQ(values.at("device.1.name"), "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(values.at("device.1.total_memory"), "85097971712");
  EXPECT_EQ(values.at("device.1.sm_count"), "108");
  EXPECT_EQ(values.at("device.1.sm_clock_khz"), "1410000");
  EXPECT_EQ(values.at("device.1.memory_clock_khz"), "1593000");
  EXPECT_EQ(values.at("device.1.memory_bus_width_bits"), "5120");
  EXPECT_EQ(values.at("device.1.compute_capability"), "8.0");

  const auto device = analyzer::trace_device(loaded, 1);
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->name, "NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(device->peaks.has_value());
  // 80 GB of memory picks the 80 GB module's bandwidth over the 40 GB one's.
  EXPECT_EQ(device->peaks->name, "A100 80GB SXM4");
  EXPECT_EQ(device->peaks->sm_count, 108u);
}

TEST(DeviceMetadata, WithoutADeviceReadingFailsNamingTheLibraryOrTheCall) {
  try {
    const std::vector<DeviceProperties> devices = read_device_properties();
    GTEST_SKIP() << "a CUDA driver is installed here (" << devices.size()
                 << " devices); this test covers machines without one";
  } catch (const GpuCaptureError& error) {
    // No driver: the library it could not load; a driver without a device: cuInit's error.
    const std::string message = error.what();
    EXPECT_TRUE(message.find("libcuda.so.1") != std::string::npos ||
                message.find("cuInit failed") != std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace tscope::profiler::cupti
