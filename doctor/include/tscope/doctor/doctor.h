#pragma once
// Runs every check of `tscope doctor` on this machine and returns the report; never exits and
// never needs a CUDA library to be present.

#include <filesystem>
#include <vector>

#include "tscope/doctor/report.h"

namespace tscope::doctor {

struct DoctorOptions {
  // Binaries whose embedded GPU code is checked against each device; own_binaries() when empty.
  std::vector<std::filesystem::path> binaries;
  // Times host-to-device copies on the first device (a fraction of a second on a GPU).
  bool measure_bandwidth = true;
};

// Throws FatbinError when a binary to check is not a readable ELF file; every CUDA failure
// becomes a diagnosis instead.
Report diagnose(const DoctorOptions& options);

}  // namespace tscope::doctor
