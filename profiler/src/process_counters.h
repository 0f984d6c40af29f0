#pragma once
// Samples of the recording process's resident memory and CPU utilisation, taken by the session's
// writer thread once per flush interval.

#include <cstdint>
#include <optional>

#include "tscope/trace/records.h"

namespace tscope::profiler {

inline constexpr std::string_view kRssCounter = "process RSS (bytes)";
inline constexpr std::string_view kCpuCounter = "process CPU (%)";

struct ProcessSample {
  trace::TimeNs time = 0;
  std::uint64_t rss_bytes = 0;
  // CPU time of all threads over the wall time since the previous sample (100% = one core);
  // absent for the first sample.
  std::optional<double> cpu_percent;
};

class ProcessCounters {
 public:
  ProcessSample sample();

 private:
  trace::TimeNs last_wall_ = 0;
  trace::TimeNs last_cpu_ = 0;
};

}  // namespace tscope::profiler
