#pragma once
// The dispatcher: one table from (op, device type) to a typed kernel, filled by each backend's
// register_*_kernels, and run_op, the single point every op and backward op runs through.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <utility>

#include "current_op.h"
#include "op_profile.h"
#include "tscope/engine/device.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/kernel_signatures.h"
#include "tscope/engine/op_table.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// One value per line of op_table.h, in its order.
enum class OpKind : std::uint16_t {
#define TSCOPE_OP_KIND(Kind, name, Signature, kernel) k##Kind,
  TSCOPE_ENGINE_OPS(TSCOPE_OP_KIND)
#undef TSCOPE_OP_KIND
      kCount
};
inline constexpr std::size_t kOpCount = static_cast<std::size_t>(OpKind::kCount);

// The op's name as traces and errors show it ("add", "matmul", ...).
std::string_view op_name(OpKind op);

class Dispatcher {
 public:
  template <typename Kernel>
  void register_kernel(OpKind op, DeviceType device, Kernel kernel) {
    static_assert(std::is_pointer_v<Kernel> && std::is_function_v<std::remove_pointer_t<Kernel>>,
                  "kernels are plain function pointers");
    store(op, device, reinterpret_cast<ErasedKernel>(kernel), typeid(Kernel));
  }

  // Throws EngineError when no kernel is registered, or when it was registered with another
  // signature than `Kernel`.
  template <typename Kernel>
  Kernel lookup(OpKind op, DeviceType device) const {
    return reinterpret_cast<Kernel>(find(op, device, typeid(Kernel)));
  }

 private:
  using ErasedKernel = void (*)();
  struct Entry {
    ErasedKernel kernel = nullptr;
    const std::type_info* signature = nullptr;
  };

  void store(OpKind op, DeviceType device, ErasedKernel kernel, const std::type_info& signature);
  ErasedKernel find(OpKind op, DeviceType device, const std::type_info& signature) const;

  std::array<std::array<Entry, kDeviceTypeCount>, kOpCount> table_{};
};

// The process-wide dispatcher, with the CPU kernels registered on first use.
Dispatcher& dispatcher();

// Registers into `target`, for every op of op_table.h, the kernel of the op's kernel name in the
// backend namespace `backend` (cpu, cuda) for the device type `device`: the body of each
// backend's register_*_kernels, so the backends register alike.
#define TSCOPE_REGISTER_BACKEND_KERNELS(target, device, backend) \
  do {                                                           \
    namespace registered_backend = backend;                      \
    Dispatcher& registered_into = (target);                      \
    constexpr DeviceType kRegisteredDevice = (device);           \
    TSCOPE_ENGINE_OPS(TSCOPE_REGISTER_OP_KERNEL)                 \
  } while (false)
// One op's line of TSCOPE_REGISTER_BACKEND_KERNELS.
#define TSCOPE_REGISTER_OP_KERNEL(Kind, name, Signature, kernel)                 \
  registered_into.register_kernel<Signature>(OpKind::k##Kind, kRegisteredDevice, \
                                             registered_backend::kernel);

namespace detail {

[[noreturn]] void throw_device_mismatch(OpKind op, Device first, Device second);
[[noreturn]] void throw_no_tensor_arguments(OpKind op);

// Calls `visit` with each tensor an op argument holds: the tensor itself, every tensor of a
// tensor list (std::span<Tensor> or std::span<const Tensor>), none for other arguments.
template <typename Arg, typename Visit>
void for_each_tensor(const Arg& arg, Visit&& visit) {
  using Plain = std::remove_cvref_t<Arg>;
  if constexpr (std::is_same_v<Plain, Tensor>) {
    visit(arg);
  } else if constexpr (std::is_same_v<Plain, std::span<Tensor>> ||
                       std::is_same_v<Plain, std::span<const Tensor>>) {
    for (const Tensor& tensor : arg)
      visit(tensor);
  }
}

// Whether an op argument is a tensor or a tensor list.
template <typename Arg>
inline constexpr bool holds_tensors_v =
    std::is_same_v<std::remove_cvref_t<Arg>, Tensor> ||
    std::is_same_v<std::remove_cvref_t<Arg>, std::span<Tensor>> ||
    std::is_same_v<std::remove_cvref_t<Arg>, std::span<const Tensor>>;

}  // namespace detail

// Every op runs here: it checks that all tensor arguments share one device, marks the thread as
// running `op` (allocations are attributed to it), calls the kernel registered for that device and,
// while a profiler session runs, records the op with its tensors, flops and bytes.
template <typename Kernel, typename... Args>
decltype(auto) run_op(OpKind op, Args&&... args) {
  std::optional<Device> device;
  auto check_device = [&](const Tensor& tensor) {
    if (!tensor.defined()) return;
    if (!device) {
      device = tensor.device();
    } else if (tensor.device() != *device) {
      detail::throw_device_mismatch(op, *device, tensor.device());
    }
  };
  (detail::for_each_tensor(args, check_device), ...);
  if (!device) detail::throw_no_tensor_arguments(op);
  const CurrentOpScope scope(op_name(op));
  const Kernel kernel = dispatcher().lookup<Kernel>(op, device->type());
  OpProfile profile(op);
  if (!profile.recording()) return kernel(std::forward<Args>(args)...);
  auto profile_read = [&](const Tensor& tensor) { profile.add_read(tensor); };
  (detail::for_each_tensor(args, profile_read), ...);
  if constexpr (std::is_void_v<std::invoke_result_t<Kernel, Args...>>) {
    // Passed as lvalues: the arguments are read again below, after the kernel ran.
    kernel(args...);
    // An in-place kernel writes its first tensor argument (every tensor of it, for a list).
    bool written = false;
    auto profile_written = [&](const auto& arg) {
      if constexpr (detail::holds_tensors_v<decltype(arg)>) {
        if (!written) {
          detail::for_each_tensor(arg, [&](const Tensor& tensor) { profile.add_written(tensor); });
        }
        written = true;
      }
    };
    (profile_written(args), ...);
    profile.finish();
  } else {
    auto result = kernel(std::forward<Args>(args)...);
    profile.add_result(result);
    profile.finish();
    return result;
  }
}

}  // namespace tscope::engine
