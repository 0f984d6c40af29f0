#pragma once
// The CUDA injection runs inside the driver's cuInit, called from code that knows nothing of C++
// exceptions: whatever a step of it throws stops that step here, as a message, and never reaches
// the driver (where it would end the program).

#include <functional>
#include <optional>
#include <string>

namespace tscope::profiler {

// Runs `step`; returns nothing when it completed, else what it threw as text (the message of a
// std::exception, or a note that it threw something else).
std::optional<std::string> injection_step_failure(const std::function<void()>& step) noexcept;

}  // namespace tscope::profiler
