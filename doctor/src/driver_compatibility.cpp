#include "tscope/doctor/driver_compatibility.h"

#include <algorithm>
#include <array>

namespace tscope::doctor {
namespace {

// NVIDIA CUDA Toolkit Release Notes, table "CUDA Toolkit and Corresponding Driver Versions"
// (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/), Linux x86_64 column, the GA row of
// each minor release. Update releases raise the toolkit driver slightly, but CUDA_VERSION does
// not carry the update number, so the GA row is the one a build can be matched against.
constexpr std::array kToolkitDrivers{
    ToolkitDriverRequirement{{13, 2}, {595, 45, 4}},
    ToolkitDriverRequirement{{13, 1}, {590, 44, 1}},
    ToolkitDriverRequirement{{13, 0}, {580, 65, 6}},
    ToolkitDriverRequirement{{12, 9}, {575, 51, 3}},
    ToolkitDriverRequirement{{12, 8}, {570, 26, 0}},
    ToolkitDriverRequirement{{12, 6}, {560, 28, 3}},
    ToolkitDriverRequirement{{12, 5}, {555, 42, 2}},
    ToolkitDriverRequirement{{12, 4}, {550, 54, 14}},
    ToolkitDriverRequirement{{12, 3}, {545, 23, 6}},
    ToolkitDriverRequirement{{12, 2}, {535, 54, 3}},
    ToolkitDriverRequirement{{12, 1}, {530, 30, 2}},
    ToolkitDriverRequirement{{12, 0}, {525, 60, 13}},
    ToolkitDriverRequirement{{11, 8}, {520, 61, 5}},
    ToolkitDriverRequirement{{11, 7}, {515, 43, 4}},
    ToolkitDriverRequirement{{11, 6}, {510, 39, 1}},
    ToolkitDriverRequirement{{11, 5}, {495, 29, 5}},
    ToolkitDriverRequirement{{11, 4}, {470, 42, 1}},
    ToolkitDriverRequirement{{11, 3}, {465, 19, 1}},
    ToolkitDriverRequirement{{11, 2}, {460, 27, 3}},
    ToolkitDriverRequirement{{11, 1}, {455, 23, 0}},
    ToolkitDriverRequirement{{11, 0}, {450, 51, 5}},
    ToolkitDriverRequirement{{10, 2}, {440, 33, 0}},
    ToolkitDriverRequirement{{10, 1}, {418, 39, 0}},
    ToolkitDriverRequirement{{10, 0}, {410, 48, 0}},
};

// NVIDIA CUDA Compatibility guide, "Minor Version Compatibility" table (CUDA 13.x >= 580,
// CUDA 12.x >= 525.60.13, CUDA 11.x >= 450.80.02 on Linux).
struct FamilyMinimum {
  int cuda_major;
  DriverVersion minimum_driver;
};
constexpr std::array kMinorVersionMinimums{
    FamilyMinimum{13, {580, 0, 0}},
    FamilyMinimum{12, {525, 60, 13}},
    FamilyMinimum{11, {450, 80, 2}},
};

}  // namespace

std::span<const ToolkitDriverRequirement> toolkit_driver_table() {
  return kToolkitDrivers;
}

std::optional<DriverVersion> toolkit_minimum_driver(CudaVersion toolkit) {
  const auto row = std::ranges::find(kToolkitDrivers, toolkit, &ToolkitDriverRequirement::toolkit);
  if (row == kToolkitDrivers.end()) {
    return std::nullopt;
  }
  return row->minimum_driver;
}

std::optional<DriverVersion> minor_version_compatibility_minimum(int cuda_major) {
  const auto row = std::ranges::find(kMinorVersionMinimums, cuda_major, &FamilyMinimum::cuda_major);
  if (row == kMinorVersionMinimums.end()) {
    return std::nullopt;
  }
  return row->minimum_driver;
}

DriverCompatibility check_driver_compatibility(CudaVersion built_with, CudaVersion driver_supports,
                                               std::optional<DriverVersion> driver_release) {
  DriverCompatibility result;
  result.full_minimum = toolkit_minimum_driver(built_with);
  result.minor_version_minimum = minor_version_compatibility_minimum(built_with.major);
  if (driver_supports >= built_with) {
    result.verdict = Compatibility::full;
    return result;
  }
  const bool same_family = driver_supports.major == built_with.major;
  const bool release_high_enough = !driver_release || !result.minor_version_minimum ||
                                   *driver_release >= *result.minor_version_minimum;
  result.verdict = same_family && result.minor_version_minimum && release_high_enough
                       ? Compatibility::minor_version
                       : Compatibility::incompatible;
  return result;
}

}  // namespace tscope::doctor
