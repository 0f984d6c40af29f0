#pragma once
// Where GPU capture plugs into the recording API's op ranges (record.h): while CUPTI runs, each
// engine op pushes its id onto CUPTI's external correlation stack of the calling thread, so the
// kernels it launches carry the op's id.

#include <cstdint>

namespace tscope::profiler {

using OpCorrelationPush = void (*)(std::uint64_t op_id);
using OpCorrelationPop = void (*)();

// Installed once by GPU capture when it starts; ops already running are not correlated.
void set_op_correlation_hooks(OpCorrelationPush push, OpCorrelationPop pop);

}  // namespace tscope::profiler
