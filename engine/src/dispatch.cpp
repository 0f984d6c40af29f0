#include "dispatch.h"

#include <mutex>

#include "cpu/register_cpu_kernels.h"
#if TSCOPE_WITH_CUDA
#include "cuda/register_cuda_kernels.h"
#endif

namespace tscope::engine {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {
#define TSCOPE_OP_NAME(Kind, name, Signature, kernel) name,
    TSCOPE_ENGINE_OPS(TSCOPE_OP_NAME)
#undef TSCOPE_OP_NAME
};

std::string_view device_type_name(DeviceType device) {
  return device == DeviceType::kCpu ? "cpu" : "cuda";
}

}  // namespace

std::string_view op_name(OpKind op) {
  return kOpNames[static_cast<std::size_t>(op)];
}

void Dispatcher::store(OpKind op, DeviceType device, ErasedKernel kernel,
                       const std::type_info& signature) {
  table_[static_cast<std::size_t>(op)][static_cast<std::size_t>(device)] = {kernel, &signature};
}

Dispatcher::ErasedKernel Dispatcher::find(OpKind op, DeviceType device,
                                          const std::type_info& signature) const {
  const Entry& entry = table_[static_cast<std::size_t>(op)][static_cast<std::size_t>(device)];
  if (entry.kernel == nullptr) {
    throw EngineError("no " + std::string(device_type_name(device)) + " kernel registered for " +
                      std::string(op_name(op)));
  }
  if (*entry.signature != signature) {
    throw EngineError("kernel for " + std::string(op_name(op)) + " on " +
                      std::string(device_type_name(device)) +
                      " was registered with another signature than the one it is called with");
  }
  return entry.kernel;
}

Dispatcher& dispatcher() {
  static Dispatcher instance;
  static std::once_flag cpu_registered;
  std::call_once(cpu_registered, [] {
    register_cpu_kernels(instance);
#if TSCOPE_WITH_CUDA
    register_cuda_kernels(instance);
#endif
  });
  return instance;
}

namespace detail {

void throw_device_mismatch(OpKind op, Device first, Device second) {
  throw DeviceMismatch(std::string(op_name(op)) +
                       ": expected all tensors on one device, got tensors on " + first.to_string() +
                       " and " + second.to_string());
}

void throw_no_tensor_arguments(OpKind op) {
  throw EngineError(std::string(op_name(op)) + ": called without a defined tensor argument");
}

}  // namespace detail
}  // namespace tscope::engine
