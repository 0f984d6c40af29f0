#pragma once
// Whether an installed NVIDIA driver can run binaries built with a given CUDA toolkit, decided
// with NVIDIA's published minimum-driver table and the minor-version-compatibility rule.

#include <optional>
#include <span>

#include "tscope/doctor/versions.h"

namespace tscope::doctor {

// One row of "CUDA Toolkit and Corresponding Driver Versions" (Linux x86_64, GA releases).
struct ToolkitDriverRequirement {
  CudaVersion toolkit;
  DriverVersion minimum_driver;
};

std::span<const ToolkitDriverRequirement> toolkit_driver_table();

// The driver that shipped with (and fully supports) `toolkit`; nullopt for toolkits the table
// does not list.
std::optional<DriverVersion> toolkit_minimum_driver(CudaVersion toolkit);

// From CUDA 11 on, binaries of a newer minor release run on any driver of the same major
// family at or above this version, with a limited feature set; nullopt before CUDA 11.
std::optional<DriverVersion> minor_version_compatibility_minimum(int cuda_major);

enum class Compatibility {
  full,           // the driver supports the toolkit's CUDA version or a later one
  minor_version,  // runs through minor version compatibility: PTX newer than the driver fails
  incompatible,   // CUDA calls fail with CUDA_ERROR_INSUFFICIENT_DRIVER
};

struct DriverCompatibility {
  Compatibility verdict = Compatibility::incompatible;
  // The driver needed for full compatibility; nullopt when `built_with` is not in the table.
  std::optional<DriverVersion> full_minimum;
  // The driver needed to run at all through minor version compatibility, when that applies.
  std::optional<DriverVersion> minor_version_minimum;
};

// `driver_supports` is what cuDriverGetVersion reports; `driver_release` is NVML's release
// number when NVML loads, and decides the 11.x case where a driver of the right family can
// still be below the minor-compatibility minimum.
DriverCompatibility check_driver_compatibility(CudaVersion built_with, CudaVersion driver_supports,
                                               std::optional<DriverVersion> driver_release);

}  // namespace tscope::doctor
