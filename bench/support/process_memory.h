#pragma once
// This process's resident and peak resident memory from /proc/self/status, and a reset of the
// peak, for benchmarks that report memory beside time.

#include <cstdint>
#include <fstream>
#include <string>

namespace tscope::bench {

// A /proc/self/status field given in kB ("VmRSS", "VmHWM"), in bytes.
inline std::uint64_t status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  }
  return 0;
}

// Makes VmHWM start again from the current resident size (Linux 4.0+).
inline void reset_peak_resident() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

}  // namespace tscope::bench
