#include "process_counters.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "tscope/profiler/clock.h"

namespace tscope::profiler {
namespace {

trace::TimeNs process_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<trace::TimeNs>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

std::uint64_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long long size_pages = 0;
  unsigned long long resident_pages = 0;
  const int fields = std::fscanf(statm, "%llu %llu", &size_pages, &resident_pages);
  std::fclose(statm);
  if (fields != 2) return 0;
  return resident_pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

ProcessSample ProcessCounters::sample() {
  ProcessSample result;
  result.time = monotonic_ns();
  result.rss_bytes = resident_bytes();
  const trace::TimeNs cpu = process_cpu_ns();
  if (last_wall_ != 0 && result.time > last_wall_) {
    result.cpu_percent = 100.0 * static_cast<double>(cpu - last_cpu_) /
                         static_cast<double>(result.time - last_wall_);
  }
  last_wall_ = result.time;
  last_cpu_ = cpu;
  return result;
}

}  // namespace tscope::profiler
