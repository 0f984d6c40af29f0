#include "cpu/register_cpu_kernels.h"

#include "cpu/cpu_kernels.h"

namespace tscope::engine {

void register_cpu_kernels(Dispatcher& dispatcher) {
  TSCOPE_REGISTER_BACKEND_KERNELS(dispatcher, DeviceType::kCpu, cpu);
}

}  // namespace tscope::engine
