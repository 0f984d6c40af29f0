#pragma once
// Metadata keys for what a recorder knows of the host's CPUs, which the what-if replay needs to
// share the cores among the threads it sees busy (a data-loader worker decoding beside the
// training thread slows it once there are more busy threads than cores).

#include <string_view>

namespace tscope::trace {

// The CPUs the recorded process could run on (its affinity mask), a decimal count.
inline constexpr std::string_view kHostCpusKey = "host_cpus";
// The threads one operator of our engine may run on (its intra-op pool and BLAS), a decimal count.
inline constexpr std::string_view kEngineCpuThreadsKey = "engine_cpu_threads";

}  // namespace tscope::trace
