#pragma once
// Fills the dispatcher with the CPU kernels; called once, on the dispatcher's first use.

#include "dispatch.h"

namespace tscope::engine {

void register_cpu_kernels(Dispatcher& dispatcher);

}  // namespace tscope::engine
