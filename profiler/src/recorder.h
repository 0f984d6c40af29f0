#pragma once
// Record-path entry points that only the capture layer itself uses (NVTX capture): ranges that
// end on another thread, the calling thread's nesting depth, and thread names.

#include <cstdint>
#include <span>
#include <string_view>

#include "tscope/profiler/record.h"

namespace tscope::profiler::internal {

void begin_async_range(std::uint64_t id, std::string_view name, NameStorage storage,
                       trace::Category category, std::span<const Arg> args);
void end_async_range(std::uint64_t id);
// Ranges open on the calling thread in the running session.
std::uint32_t current_depth();
void name_thread(std::int64_t thread_id, std::string_view name);

}  // namespace tscope::profiler::internal
