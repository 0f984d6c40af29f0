#include "cuda/register_cuda_kernels.h"

#include "cuda/cuda_kernels.h"

namespace tscope::engine {

void register_cuda_kernels(Dispatcher& dispatcher) {
  TSCOPE_REGISTER_BACKEND_KERNELS(dispatcher, DeviceType::kCuda, cuda);
}

}  // namespace tscope::engine
