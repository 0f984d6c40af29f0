#pragma once
// The CUDA libraries tscope uses beside the driver (runtime, cuBLAS, cuDNN, CUPTI) and NVML,
// each opened at run time and asked for its version.

#include <optional>
#include <vector>

#include "tscope/doctor/report.h"

namespace tscope::doctor::detail {

// The toolkit version our binaries were compiled against (CUDA_VERSION).
CudaVersion built_with_cuda_version();

std::vector<LibraryReport> probe_cuda_libraries();

struct NvmlProbe {
  LibraryReport library;
  std::optional<DriverVersion> driver_release;
};

// NVML ships with the driver, not the toolkit: it loads only where a driver is installed.
NvmlProbe probe_nvml();

}  // namespace tscope::doctor::detail
