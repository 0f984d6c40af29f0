#pragma once
// Fills the dispatcher's CUDA column. Registering touches no driver: devices are looked for only
// when a CUDA tensor is first created.

#include "dispatch.h"

namespace tscope::engine {

void register_cuda_kernels(Dispatcher& dispatcher);

}  // namespace tscope::engine
