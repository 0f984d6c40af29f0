#pragma once
// The names training steps go by: our engine's "step N" (StepRange), PyTorch's "ProfilerStep#N"
// (its profiler's record_function, seen through NVTX or in Kineto JSON), and NVTX ranges a
// program names "step N". The capture window of `tscope record --steps` and the cut of `tscope
// convert --steps` both number steps by them.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tscope::profiler {

// The number of a range named as a training step, any case; nullopt for other names.
std::optional<std::int64_t> step_number(std::string_view name);

}  // namespace tscope::profiler
