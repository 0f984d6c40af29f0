#include "cpu/register_cpu_kernels.h"

#include "cpu/cpu_kernels.h"

namespace tscope::engine {

void register_cpu_kernels(Dispatcher& dispatcher) {
#define TSCOPE_REGISTER_CPU_KERNEL(Kind, name, Signature, kernel) \
  dispatcher.register_kernel<Signature>(OpKind::k##Kind, DeviceType::kCpu, cpu::kernel);
  TSCOPE_ENGINE_OPS(TSCOPE_REGISTER_CPU_KERNEL)
#undef TSCOPE_REGISTER_CPU_KERNEL
}

}  // namespace tscope::engine
