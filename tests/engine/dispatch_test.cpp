// The dispatcher: typed lookups, missing kernels, and tensors on different devices, named in the
// error.

#include "dispatch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "tscope/engine/allocator.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

// Host memory labelled as cuda:0, so device checks run without a CUDA device; the device check
// refuses every op on it before any kernel runs.
class HostMemoryLabelledCuda final : public Allocator {
 public:
  void* allocate(std::size_t bytes) override { return bytes == 0 ? nullptr : std::malloc(bytes); }
  void deallocate(void* address, std::size_t) override { std::free(address); }
  AllocatorStats stats() const override { return {}; }
  Device device() const override { return Device::cuda(0); }
};

Tensor tensor_labelled_cuda(const Shape& shape) {
  static HostMemoryLabelledCuda allocator;
  register_allocator(Device::cuda(0), allocator);
  return empty(shape, {.device = Device::cuda(0)});
}

Tensor identity(const Tensor& x) {
  return x;
}

TEST(Dispatch, TensorsOnDifferentDevicesAreAnErrorNamingBoth) {
  try {
    add(ones({2}), tensor_labelled_cuda({2}));
    FAIL() << "expected DeviceMismatch";
  } catch (const DeviceMismatch& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("add"), std::string::npos) << message;
    EXPECT_NE(message.find("cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
  }
}

TEST(Dispatch, AnOpWithoutAKernelForTheDeviceIsAnErrorNamingBoth) {
  const Dispatcher without_kernels;
  try {
    without_kernels.lookup<UnaryKernel>(OpKind::kRelu, DeviceType::kCuda);
    FAIL() << "expected EngineError";
  } catch (const EngineError& error) {
    EXPECT_EQ(std::string(error.what()), "no cuda kernel registered for relu");
  }
}

TEST(Dispatch, LookupWithAnotherSignatureThanRegisteredIsRefused) {
  EXPECT_THROW(dispatcher().lookup<UnaryKernel>(OpKind::kAdd, DeviceType::kCpu), EngineError);
  EXPECT_NE(dispatcher().lookup<BinaryKernel>(OpKind::kAdd, DeviceType::kCpu), nullptr);
}

TEST(Dispatch, ADispatcherReturnsTheKernelRegisteredForOpAndDevice) {
  Dispatcher local;
  local.register_kernel<UnaryKernel>(OpKind::kNeg, DeviceType::kCpu, identity);
  EXPECT_EQ(local.lookup<UnaryKernel>(OpKind::kNeg, DeviceType::kCpu), &identity);
  EXPECT_THROW(local.lookup<UnaryKernel>(OpKind::kNeg, DeviceType::kCuda), EngineError);
  EXPECT_THROW(local.lookup<UnaryKernel>(OpKind::kExp, DeviceType::kCpu), EngineError);
}

TEST(Dispatch, EveryOpHasADistinctName) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kOpCount; ++i)
    names.insert(op_name(static_cast<OpKind>(i)));
  EXPECT_EQ(names.size(), kOpCount);
}

TEST(Dispatch, EveryOpOfTheTableHasItsCpuKernelUnderItsSignatureAndName) {
#define TSCOPE_EXPECT_CPU_KERNEL(Kind, name, Signature, kernel) \
  EXPECT_EQ(op_name(OpKind::k##Kind), name);                    \
  EXPECT_NE(dispatcher().lookup<Signature>(OpKind::k##Kind, DeviceType::kCpu), nullptr);
  TSCOPE_ENGINE_OPS(TSCOPE_EXPECT_CPU_KERNEL)
#undef TSCOPE_EXPECT_CPU_KERNEL
}

}  // namespace
}  // namespace tscope::engine
