#pragma once
// What a span means to the analyses, from its category and name: host activity classes, kinds of
// GPU work, synchronization calls, and the family of a kernel for fusion. Names follow CUDA,
// HIP, PyTorch and our engine, so imported traces classify like ours.

#include <cstdint>
#include <string_view>
#include <vector>

#include "tscope/trace/event_kinds.h"
#include "tscope/trace/trace.h"

namespace tscope::analyzer {

// In priority order: where host intervals overlap, the lower value wins.
enum class HostActivity : std::uint8_t { kDataWait, kSync, kOptimizer, kOp, kNone };
inline constexpr std::size_t kHostActivityCount = 4;

HostActivity host_activity(trace::Category category, std::string_view name);

// In priority order for overlapping GPU work.
enum class GpuWork : std::uint8_t { kCompute, kCommunication, kCopy, kMemset, kNone };
inline constexpr std::size_t kGpuWorkCount = 4;

GpuWork gpu_work(trace::Category category, std::string_view name);

// cudaStreamSynchronize, cudaDeviceSynchronize, hipEventSynchronize, cuda_sync activity, ...
bool is_sync_call(trace::Category category, std::string_view name);
// A copy call that returns only when the copy is done (cudaMemcpy, not cudaMemcpyAsync).
bool is_blocking_copy_call(std::string_view name);
bool is_runtime_call(trace::Category category);

// Host calls that queue GPU work, by API name: kernel launches of the CUDA runtime and driver and
// of HIP (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx,
// hipLaunchKernel, hipExtModuleLaunchKernel, ...), graph launches, and asynchronous copies and
// memsets, which Holistic Trace Analysis' launch statistics count with the kernels.
enum class LaunchApi : std::uint8_t { kKernel, kGraph, kCopyOrMemset, kNone };
LaunchApi launch_api(std::string_view name);

// A matrix product or convolution op (our engine's matmul, conv2d and their gradients, PyTorch's
// aten::mm, addmm, linear, ...): library GEMM work that elementwise fusion does not absorb.
bool is_matrix_product_op(std::string_view name);

// Our engine's loader worker ranges and other tools' equivalents.
bool is_loader_work(trace::Category category);

// One class of (category, name) per name, computed on its first event: names repeat across
// millions of events, and each class above costs string matching. A name met again under another
// category is classified again.
template <typename Value>
class ClassByName {
 public:
  // classify(category, name) gives the class of the name's events.
  template <typename Classify>
  Value get(const trace::Trace& trace, trace::Category category, trace::StringId name,
            Classify&& classify) {
    if (known_.size() <= name) known_.resize(name + 1);
    Known& known = known_[name];
    if (!known.set || known.category != category)
      known = {classify(category, trace.string(name)), category, true};
    return known.value;
  }

 private:
  struct Known {
    Value value{};
    trace::Category category = trace::Category::kOther;
    bool set = false;
  };
  std::vector<Known> known_;
};

}  // namespace tscope::analyzer
