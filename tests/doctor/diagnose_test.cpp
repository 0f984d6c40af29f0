// The doctor library run for real on this machine: without an NVIDIA driver it must say so,
// say what to do, and report no usable GPU.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <optional>
#include <string>

#include "no_driver.h"
#include "tscope/doctor/doctor.h"

namespace tscope::doctor {
namespace {

const Diagnosis* find_check(const Report& report, const std::string& check) {
  const auto found = std::ranges::find(report.diagnoses, check, &Diagnosis::check);
  return found == report.diagnoses.end() ? nullptr : &*found;
}

// Sets an environment variable for one test and restores the previous state afterwards.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* previous = getenv(name); previous != nullptr) {
      previous_ = previous;
    }
    setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (previous_) {
      setenv(name_, previous_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

DoctorOptions without_bandwidth() {
  DoctorOptions options;
  options.measure_bandwidth = false;
  return options;
}

// The diagnosis, without the bandwidth measurement, of a process whose CUDA_VISIBLE_DEVICES is
// `devices`.
Report diagnose_with_visible_devices(const char* devices) {
  const ScopedEnvironment visible("CUDA_VISIBLE_DEVICES", devices);
  return diagnose(without_bandwidth());
}

TEST(DiagnoseTest, MissingDriverIsAnErrorWithHostAndContainerAdvice) {
  TSCOPE_REQUIRE_NO_NVIDIA_DRIVER();
  const Report report = diagnose(without_bandwidth());
  if (!report.built_with_cuda) {
    GTEST_SKIP() << "built without the CUDA toolkit: the driver is never looked for";
  }
  const Diagnosis* driver = find_check(report, "nvidia-driver");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->status, Status::error);
  EXPECT_NE(driver->found.find("libcuda.so.1"), std::string::npos) << driver->found;
  EXPECT_NE(driver->action.find("--gpus all"), std::string::npos) << driver->action;
  EXPECT_NE(driver->action.find("install the NVIDIA driver"), std::string::npos) << driver->action;
}

TEST(DiagnoseTest, MissingDriverMeansNoUsableGpu) {
  TSCOPE_REQUIRE_NO_NVIDIA_DRIVER();
  const Report report = diagnose(without_bandwidth());
  EXPECT_FALSE(report.gpu_usable());
  EXPECT_TRUE(report.devices.empty());
  EXPECT_FALSE(report.bandwidth);
}

TEST(DiagnoseTest, BuildWithoutCudaIsReportedAsSuch) {
  const Report report = diagnose(without_bandwidth());
  if (report.built_with_cuda) {
    GTEST_SKIP() << "built with the CUDA toolkit";
  }
  const Diagnosis* build = find_check(report, "cuda-build");
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->status, Status::error);
}

TEST(DiagnoseTest, ToolkitLibrariesAreProbedWithoutADriver) {
  const Report report = diagnose(without_bandwidth());
  if (!report.built_with_cuda) {
    GTEST_SKIP() << "built without the CUDA toolkit: no CUDA library is probed";
  }
  for (const char* id : {"cudart", "cublas", "cudnn", "cupti", "nvml"}) {
    const auto library = std::ranges::find(report.libraries, std::string(id), &LibraryReport::id);
    ASSERT_NE(library, report.libraries.end()) << id;
    EXPECT_TRUE(library->loaded ? !library->version.empty() : !library->error.empty()) << id;
    EXPECT_NE(find_check(report, std::string("library-") + id), nullptr) << id;
  }
}

TEST(DiagnoseTest, EmptyCudaVisibleDevicesIsAnError) {
  const Report report = diagnose_with_visible_devices("");
  const Diagnosis* visible = find_check(report, "cuda-visible-devices");
  ASSERT_NE(visible, nullptr);
  EXPECT_EQ(visible->status, Status::error);
  EXPECT_FALSE(report.gpu_usable());
}

TEST(DiagnoseTest, ListedCudaVisibleDevicesAreReportedAsVisible) {
  const Report report = diagnose_with_visible_devices("0,1");
  const Diagnosis* visible = find_check(report, "cuda-visible-devices");
  ASSERT_NE(visible, nullptr);
  EXPECT_EQ(visible->status, Status::ok);
  EXPECT_NE(visible->found.find("2 GPU(s)"), std::string::npos) << visible->found;
}

TEST(DiagnoseTest, ChecksOwnExecutableByDefault) {
  const Report report = diagnose(without_bandwidth());
  ASSERT_FALSE(report.binaries.empty());
  EXPECT_EQ(report.binaries.front().path, std::filesystem::read_symlink("/proc/self/exe").string());
}

#ifdef TSCOPE_PROBE_LIBRARY
TEST(DiagnoseTest, ChecksTheBinariesItIsGiven) {
  DoctorOptions options = without_bandwidth();
  options.binaries = {TSCOPE_PROBE_LIBRARY};
  const Report report = diagnose(options);
  ASSERT_EQ(report.binaries.size(), 1u);
  EXPECT_EQ(report.binaries[0].containers.size(), 2u);
}
#endif

TEST(DiagnoseTest, BinaryThatIsNotElfThrowsTypedError) {
  DoctorOptions options = without_bandwidth();
  options.binaries = {TSCOPE_SOURCE_DIR "/doctor/CMakeLists.txt"};
  EXPECT_THROW(diagnose(options), FatbinError);
}

}  // namespace
}  // namespace tscope::doctor
