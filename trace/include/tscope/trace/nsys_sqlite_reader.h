#pragma once
// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`): CUDA kernels with launch
// geometry, memcpys with direction and memory kinds, memsets, runtime and driver API calls linked
// to the GPU work they launched, and NVTX ranges and marks, on the processes and threads that
// nsys recorded. Timestamps stay in nsys' nanosecond session clock.

#include <cstdint>
#include <filesystem>
#include <span>

#include "tscope/trace/trace.h"

namespace tscope::trace {

// Throws IoError when the file cannot be opened, FormatError naming the file and the failing
// query when it is not an nsys export SQLite can read.
Trace read_nsys_sqlite(const std::filesystem::path& path);

// True when `bytes` start with SQLite's file header.
bool looks_like_sqlite(std::span<const std::uint8_t> bytes);

}  // namespace tscope::trace
