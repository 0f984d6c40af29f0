#pragma once
// Record-path entry points that only the capture layer itself uses (NVTX capture): ranges that
// end on another thread, push and pop, and thread names.

#include <cstdint>
#include <span>
#include <string_view>

#include "tscope/profiler/record.h"

namespace tscope::profiler::internal {

void begin_async_range(std::uint64_t id, std::string_view name, NameStorage storage,
                       trace::Category category, std::span<const Arg> args);
void end_async_range(std::uint64_t id);
// NVTX's push (and the engine's step) and pop, each one call: push returns the nesting level the
// range opened at, pop the depth it leaves (-1 when no range of the running session was open).
struct Pushed {
  int level = 0;                 // the depth before the push
  std::uint32_t generation = 0;  // the session it recorded under; 0: none ran
};
Pushed push_range(std::string_view name, NameStorage storage, trace::Category category,
                  std::span<const Arg> args);
int pop_range();
void name_thread(std::int64_t thread_id, std::string_view name);

}  // namespace tscope::profiler::internal
