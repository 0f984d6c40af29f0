#include "cuda/register_cuda_kernels.h"

#include "cuda/cuda_kernels.h"

namespace tscope::engine {

void register_cuda_kernels(Dispatcher& dispatcher) {
#define TSCOPE_REGISTER_CUDA_KERNEL(Kind, name, Signature, kernel) \
  dispatcher.register_kernel<Signature>(OpKind::k##Kind, DeviceType::kCuda, cuda::kernel);
  TSCOPE_ENGINE_OPS(TSCOPE_REGISTER_CUDA_KERNEL)
#undef TSCOPE_REGISTER_CUDA_KERNEL
}

}  // namespace tscope::engine
