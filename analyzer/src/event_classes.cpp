#include "event_classes.h"

#include "kernel_families.h"
#include "trace_names.h"

namespace tscope::analyzer {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  for (const std::string_view part : parts) {
    if (contains(text, part)) return true;
  }
  return false;
}

}  // namespace

bool is_runtime_call(Category category) {
  return category == Category::kRuntimeApi || category == Category::kDriverApi;
}

bool is_sync_call(Category category, std::string_view name) {
  if (category == Category::kSynchronization) return true;
  return is_runtime_call(category) && contains(name, "Synchronize");
}

LaunchApi launch_api(std::string_view name) {
  // Prefixes also cover the _v2, _ptsz and Ex variants (cudaLaunchKernelExC, cuLaunchKernelEx).
  const auto starts_with_any = [&](std::initializer_list<std::string_view> prefixes) {
    for (const std::string_view prefix : prefixes) {
      if (name.starts_with(prefix)) return true;
    }
    return false;
  };
  if (starts_with_any({"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
                       "cuLaunchCooperativeKernel", "hipLaunchKernel", "hipExtLaunchKernel",
                       "hipModuleLaunchKernel", "hipExtModuleLaunchKernel",
                       "hipLaunchCooperativeKernel"})) {
    return LaunchApi::kKernel;
  }
  if (starts_with_any({"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"}))
    return LaunchApi::kGraph;
  if (starts_with_any(
          {"cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset", "hipMemcpy", "hipMemset"}) &&
      contains(name, "Async")) {
    return LaunchApi::kCopyOrMemset;
  }
  return LaunchApi::kNone;
}

bool is_blocking_copy_call(std::string_view name) {
  // cudaMemcpy, cudaMemcpy2D, cuMemcpyHtoD_v2, hipMemcpy: every copy call without "Async".
  return contains_any(name, {"cudaMemcpy", "cuMemcpy", "hipMemcpy"}) && !contains(name, "Async") &&
         !contains(name, "ToSymbol") && !contains(name, "FromSymbol");
}

HostActivity host_activity(Category category, std::string_view name) {
  switch (category) {
    case Category::kDataWait:
      return HostActivity::kDataWait;
    case Category::kOptimizer:
      return HostActivity::kOptimizer;
    case Category::kSynchronization:
      return HostActivity::kSync;
    case Category::kRuntimeApi:
    case Category::kDriverApi:
      return is_sync_call(category, name) ? HostActivity::kSync : HostActivity::kOp;
    case Category::kCpuOp:
    case Category::kUserAnnotation:
    case Category::kPythonFunction:
      // PyTorch's DataLoader iterator and optimizer ranges are ordinary annotations by name.
      if (name.starts_with("enumerate(DataLoader)")) return HostActivity::kDataWait;
      if (name.starts_with("Optimizer.")) return HostActivity::kOptimizer;
      return category == Category::kCpuOp ? HostActivity::kOp : HostActivity::kNone;
    default:
      return HostActivity::kNone;
  }
}

GpuWork gpu_work(Category category, std::string_view name) {
  switch (category) {
    case Category::kKernel:
      return kernel_family(name) == KernelFamily::kCommunication ? GpuWork::kCommunication
                                                                 : GpuWork::kCompute;
    case Category::kCommunication:
      return GpuWork::kCommunication;
    case Category::kMemcpy:
      return GpuWork::kCopy;
    case Category::kMemset:
      return GpuWork::kMemset;
    default:
      return GpuWork::kNone;
  }
}

bool is_matrix_product_op(std::string_view name) {
  return name == "mm" || name == "aten::mm" ||
         contains_any(name, {"matmul", "addmm", "bmm", "linear", "gemm", "conv"});
}

bool is_loader_work(Category category) {
  return category == Category::kDataLoaderLoad;
}

}  // namespace tscope::analyzer
