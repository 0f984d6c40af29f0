#pragma once
// The two version numbers CUDA compatibility is decided on: a CUDA version (what a toolkit
// built, what a driver supports) and an NVIDIA driver release ("580.65.06").

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace tscope::doctor {

struct CudaVersion {
  int major = 0;
  int minor = 0;

  // CUDA encodes versions as 1000 * major + 10 * minor (CUDA_VERSION, cuDriverGetVersion).
  static CudaVersion from_encoded(int encoded) { return {encoded / 1000, (encoded % 1000) / 10}; }
  std::string to_string() const;
  auto operator<=>(const CudaVersion&) const = default;
};

struct DriverVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  // Parses "580.65.06" or "570.26" (the form nvidia-smi and NVML print); nullopt otherwise.
  static std::optional<DriverVersion> parse(std::string_view text);
  std::string to_string() const;
  auto operator<=>(const DriverVersion&) const = default;
};

}  // namespace tscope::doctor
