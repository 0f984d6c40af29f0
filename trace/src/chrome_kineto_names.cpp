#include "tscope/trace/chrome_kineto_names.h"

#include <array>
#include <charconv>
#include <optional>

#include "tscope/trace/named_values.h"

namespace tscope::trace {
namespace {

// Kineto's categories (current and 2021 schema) and how tools after it spell the same meaning.
constexpr auto kKinetoCategories = std::to_array<NamedValue<Category>>({
    {"kernel", Category::kKernel},
    {"Kernel", Category::kKernel},
    {"gpu_memcpy", Category::kMemcpy},
    {"Memcpy", Category::kMemcpy},
    {"gpu_memset", Category::kMemset},
    {"Memset", Category::kMemset},
    {"cuda_runtime", Category::kRuntimeApi},
    {"Runtime", Category::kRuntimeApi},
    {"cuda_driver", Category::kDriverApi},
    {"cuda_sync", Category::kSynchronization},
    {"cpu_op", Category::kCpuOp},
    {"Operator", Category::kCpuOp},
    {"user_annotation", Category::kUserAnnotation},
    {"gpu_user_annotation", Category::kGpuUserAnnotation},
    {"python_function", Category::kPythonFunction},
});

// CUPTI's copy kinds as Kineto prints them; array copies count as device copies.
constexpr auto kDirections = std::to_array<NamedValue<CopyDirection>>({
    {"HtoD", CopyDirection::kHostToDevice},
    {"HtoA", CopyDirection::kHostToDevice},
    {"DtoH", CopyDirection::kDeviceToHost},
    {"AtoH", CopyDirection::kDeviceToHost},
    {"DtoD", CopyDirection::kDeviceToDevice},
    {"DtoA", CopyDirection::kDeviceToDevice},
    {"AtoD", CopyDirection::kDeviceToDevice},
    {"AtoA", CopyDirection::kDeviceToDevice},
    {"HtoH", CopyDirection::kHostToHost},
    {"PtoP", CopyDirection::kPeerToPeer},
});

constexpr auto kMemoryKinds = std::to_array<NamedValue<MemoryKind>>({
    {"Pageable", MemoryKind::kPageable},
    {"Pinned", MemoryKind::kPinned},
    {"Device", MemoryKind::kDevice},
    {"Array", MemoryKind::kDevice},
    {"Device Static", MemoryKind::kDevice},
    {"Managed", MemoryKind::kManaged},
    {"Managed Static", MemoryKind::kManaged},
});

MemoryKind memory_kind_from_name(std::string_view text) {
  return value_named(kMemoryKinds, text).value_or(MemoryKind::kUnknown);
}

std::string_view memory_kind_name(MemoryKind kind) {
  return name_of(kMemoryKinds, kind).value_or("Unknown");
}

// Kineto names each profiler step "ProfilerStep#<n>".
bool is_profiler_step(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return false;
  long long number = 0;
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(name.data() + kPrefix.size(), last, number);
  return error == std::errc{} && end == last;
}

// PyTorch's legacy autograd profiler (export_chrome_trace of builds without Kineto, common on
// CPU-only installs) writes no "cat": every op and record_function range is alike. Its ops are
// aten::* and the autograd engine's (AddmmBackward0, autograd::engine::evaluate_function: ...);
// Optimizer.step#* and Optimizer.zero_grad#* keep their names, which mark the optimizer.
bool is_legacy_profiler_op(std::string_view name) {
  if (name.starts_with("aten::") || name.starts_with("autograd::") ||
      name.starts_with("torch::autograd::") || name.starts_with("Optimizer.")) {
    return true;
  }
  const std::size_t backward = name.rfind("Backward");
  if (backward == std::string_view::npos || backward == 0) return false;
  for (const char c : name.substr(backward + std::string_view("Backward").size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

Category category_from_chrome(std::string_view cat, std::string_view name) {
  if (cat.empty()) {
    if (is_profiler_step(name)) return Category::kStep;
    if (is_legacy_profiler_op(name)) return Category::kCpuOp;
    // The DataLoader iterator's range, which PyTorch records whatever the profiler.
    if (name.starts_with("enumerate(DataLoader)")) return Category::kUserAnnotation;
    return Category::kOther;
  }
  if (const std::optional<Category> kineto = value_named(kKinetoCategories, cat)) {
    const bool may_be_step = kineto == Category::kUserAnnotation || kineto == Category::kCpuOp;
    return may_be_step && is_profiler_step(name) ? Category::kStep : *kineto;
  }
  for (int index = 0; index < kCategoryCount; ++index) {
    const auto category = static_cast<Category>(index);
    if (to_string(category) == cat) return category;
  }
  return Category::kOther;
}

std::string_view chrome_category(Category category) {
  return name_of(kKinetoCategories, category).value_or(to_string(category));
}

CopyInfo copy_from_kineto_name(std::string_view name) {
  // "Memcpy HtoD (Pageable -> Device)"
  CopyInfo copy;
  constexpr std::string_view kPrefix = "Memcpy ";
  if (!name.starts_with(kPrefix)) return copy;
  name.remove_prefix(kPrefix.size());
  const auto space = name.find(' ');
  const std::string_view direction = name.substr(0, space);
  copy.direction = value_named(kDirections, direction).value_or(CopyDirection::kUnknown);
  if (space == std::string_view::npos) return copy;
  std::string_view kinds = name.substr(space + 1);
  if (!kinds.starts_with('(') || !kinds.ends_with(')')) return copy;
  kinds = kinds.substr(1, kinds.size() - 2);
  constexpr std::string_view kArrow = " -> ";
  const auto arrow = kinds.find(kArrow);
  if (arrow == std::string_view::npos) return copy;
  copy.source = memory_kind_from_name(kinds.substr(0, arrow));
  copy.destination = memory_kind_from_name(kinds.substr(arrow + kArrow.size()));
  return copy;
}

std::string kineto_copy_name(const CopyInfo& copy) {
  std::string name = "Memcpy ";
  name += copy.direction == CopyDirection::kUnknown ? "Unknown" : to_string(copy.direction);
  name += " (";
  name += memory_kind_name(copy.source);
  name += " -> ";
  name += memory_kind_name(copy.destination);
  name += ')';
  return name;
}

std::string kineto_memset_name(MemoryKind kind) {
  return "Memset (" + std::string(memory_kind_name(kind)) + ")";
}

FlowKind flow_kind_from_chrome(std::string_view cat) {
  if (cat == "ac2g" || cat == "async_cpu_to_gpu" || cat == "async")
    return FlowKind::kLaunchToKernel;
  if (cat == "fwdbwd") return FlowKind::kForwardBackward;
  if (cat == to_string(FlowKind::kOpToKernel)) return FlowKind::kOpToKernel;
  if (cat == to_string(FlowKind::kHandoff)) return FlowKind::kHandoff;
  if (cat == to_string(FlowKind::kEnqueue)) return FlowKind::kEnqueue;
  return FlowKind::kOther;
}

std::string_view chrome_flow_category(FlowKind kind) {
  if (kind == FlowKind::kLaunchToKernel) return "ac2g";
  if (kind == FlowKind::kForwardBackward) return "fwdbwd";
  return to_string(kind);
}

}  // namespace tscope::trace
