#pragma once
// Whether the NVIDIA kernel module lets non-root users read GPU performance counters
// (NVreg_RestrictProfilingToAdminUsers). When it does not, CUPTI's counter and profiling APIs
// fail with CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (Nsight reports ERR_NVGPUCTRPERM); activity
// tracing of kernels and copies still works.

#include <optional>
#include <string_view>

namespace tscope::doctor {

inline constexpr std::string_view kNvidiaParamsPath = "/proc/driver/nvidia/params";

// Reads the "RmProfilingAdminOnly: N" (or older "RestrictProfilingToAdminUsers: N") line of
// /proc/driver/nvidia/params: true when only administrators may profile; nullopt when the line
// is absent or malformed.
std::optional<bool> parse_profiling_admin_only(std::string_view params_text);

}  // namespace tscope::doctor
