#include "tscope/analyzer/tensor_cores.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu_spans.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/device_peaks.h"
#include "tscope/analyzer/matrix_kernels.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kTensorCores = "tensor_cores";
constexpr std::array kFindingKinds{kTensorCores};

constexpr std::size_t kMaxEvidence = 10;
constexpr std::size_t kNamedKernels = 3;

struct MatrixTime {
  double matrix_ns = 0;
  double scalar_ns = 0;
  double tf32_ns = 0;  // Tensor Core kernels on TF32: TF32 is already allowed somewhere
  std::unordered_map<trace::StringId, double> scalar_kernel_ns;
  std::vector<std::pair<TimeNs, EventRef>> longest_scalar;
};

MatrixTime matrix_time(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  MatrixTime time;
  // Kernels repeat a few hundred names; classify each name once.
  std::unordered_map<trace::StringId, MatrixKernel> classes;
  for_each_gpu_span(trace, [&](const trace::SpanColumns& spans, std::uint32_t i, EventRef span) {
    if (spans.category[i] != trace::Category::kKernel) return;
    if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) return;
    auto [known, added] = classes.try_emplace(spans.name[i]);
    if (added) known->second = classify_matrix_kernel(trace.string(spans.name[i]));
    const MatrixKernel kernel = known->second;
    if (kernel.unit == MatrixUnit::kNone) return;
    const TimeNs length = spans.end(i) - spans.start[i];
    time.matrix_ns += static_cast<double>(length);
    if (kernel.unit == MatrixUnit::kTensorCores && kernel.precision == MatrixPrecision::kTf32)
      time.tf32_ns += static_cast<double>(length);
    if (kernel.unit != MatrixUnit::kScalar || kernel.precision != MatrixPrecision::kFp32) return;
    time.scalar_ns += static_cast<double>(length);
    time.scalar_kernel_ns[spans.name[i]] += static_cast<double>(length);
    time.longest_scalar.emplace_back(length, span);
  });
  return time;
}

// The fix that keeps FP32 storage (TF32, or FP32 on AMD's matrix cores), else autocast.
struct Fix {
  std::string what;
  double target_flops = 0;
};

Fix best_fix(const DevicePeaks& device) {
  if (device.tf32_matrix_flops > 0) {
    return {
        "Allow TF32 for matrix products and convolutions: "
        "torch.backends.cuda.matmul.allow_tf32 = True (or "
        "torch.set_float32_matmul_precision(\"high\")) and torch.backends.cudnn.allow_tf32 = "
        "True; cuBLAS users set CUBLAS_TF32_TENSOR_OP_MATH",
        device.tf32_matrix_flops};
  }
  if (device.fp32_matrix_flops > 0) {
    return {
        "Use the FP32 matrix-core kernels: a rocBLAS / MIOpen build for this GPU picks MFMA "
        "kernels for FP32; else autocast to bf16",
        device.fp32_matrix_flops};
  }
  if (device.fp16_matrix_flops > 0) {
    return {
        "Train in mixed precision: torch.autocast(\"cuda\", dtype=torch.float16) with "
        "torch.cuda.amp.GradScaler (this GPU has no TF32)",
        device.fp16_matrix_flops};
  }
  return {};
}

std::string kernel_list(const trace::Trace& trace, const MatrixTime& time) {
  std::vector<std::pair<double, trace::StringId>> kernels;
  kernels.reserve(time.scalar_kernel_ns.size());
  for (const auto& [name, ns] : time.scalar_kernel_ns)
    kernels.emplace_back(ns, name);
  std::sort(kernels.begin(), kernels.end(), std::greater<>());
  std::string text;
  for (std::size_t i = 0; i < std::min(kNamedKernels, kernels.size()); ++i) {
    const std::string_view name = trace.string(kernels[i].second);
    text += (i ? "; " : "") + std::string(name.substr(0, 80)) + " (" +
            format_percent(kernels[i].first / time.scalar_ns) + ", pattern \"" +
            std::string(classify_matrix_kernel(name).pattern) + "\")";
  }
  return text;
}

}  // namespace

std::vector<Finding> find_tensor_core_use(const AnalysisContext& context) {
  if (!context.has_gpu()) return {};
  const MatrixTime time = matrix_time(context);
  if (time.scalar_ns <= 0) return {};
  const trace::Trace& trace = context.trace();
  const double steps = context.step_count();
  const double step_ns = context.steps().mean_ns();
  const double scalar_ns = time.scalar_ns / steps;
  const double scalar_share = time.scalar_ns / time.matrix_ns;
  const double cost_share = step_ns > 0 ? scalar_ns / step_ns : 0;
  const auto device = trace_device(trace);

  Finding finding;
  finding.kind = kTensorCores;
  finding.cost = {scalar_ns, cost_share, 0};
  finding.title = format_percent(scalar_share) +
                  " of GEMM and convolution time runs without Tensor Cores (FP32 SIMT kernels), " +
                  format_duration(scalar_ns) + " per step";
  auto longest = time.longest_scalar;
  std::sort(longest.begin(), longest.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < std::min(kMaxEvidence, longest.size()); ++i)
    finding.evidence.push_back(longest[i].second);
  finding.metrics = {{"matrix_ns_per_step", time.matrix_ns / steps, "ns"},
                     {"scalar_ns_per_step", scalar_ns, "ns"},
                     {"scalar_share", scalar_share, "ratio"},
                     {"tf32_share", time.tf32_ns / time.matrix_ns, "ratio"}};
  finding.explanation =
      "GEMM and convolution kernels are told apart by the instruction their "
      "names state (docs/analyzer.md, \"Tensor Core use\"). The FP32 SIMT ones "
      "with the most time: " +
      kernel_list(trace, time) + ".";

  const Fix fix = device && device->peaks ? best_fix(*device->peaks) : Fix{};
  if (!device || !device->peaks) {
    // Without the device's peaks there is no gain to rank by: at most low.
    finding.severity = std::min(severity_for_share(cost_share), Severity::kLow);
    finding.explanation += " The gain is not estimated: " +
                           (device ? "the GPU '" + device->name + "' is not in the device table."
                                   : std::string("the trace does not name its GPU."));
    finding.recommendation =
        "On a GPU with TF32 (Ampere and later) allow TF32 "
        "(torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True); "
        "on Volta or Turing autocast to fp16.";
  } else if (fix.target_flops <= 0) {
    finding.severity = Severity::kInfo;
    finding.explanation += " The " + std::string(device->peaks->name) +
                           " has no Tensor Cores, so there is no faster unit for these kernels.";
    finding.recommendation =
        "A GPU with Tensor Cores (Volta or later) would run these GEMMs "
        "several times faster.";
  } else {
    const DevicePeaks& peaks = *device->peaks;
    // A kernel that moves to Tensor Cores is assumed to keep its share of the (higher) peak.
    const double gain_ns = scalar_ns * (1 - peaks.fp32_flops / fix.target_flops);
    const double half_flops = std::max(peaks.bf16_matrix_flops, peaks.fp16_matrix_flops);
    const double autocast_gain_ns =
        half_flops > 0 ? scalar_ns * (1 - peaks.fp32_flops / half_flops) : 0;
    finding.estimated_gain_ns_per_step = gain_ns;
    std::vector<std::string> scalar_kernels;
    scalar_kernels.reserve(time.scalar_kernel_ns.size());
    for (const auto& [name, ns] : time.scalar_kernel_ns)
      scalar_kernels.emplace_back(trace.string(name));
    std::sort(scalar_kernels.begin(), scalar_kernels.end());
    finding.fix = {"kernel:" + exact_names_pattern(scalar_kernels) + "*" +
                   fmt::format("{:.4g}", peaks.fp32_flops / fix.target_flops)};
    finding.severity = severity_for_share(step_ns > 0 ? gain_ns / step_ns : 0);
    finding.metrics.push_back({"fix_gain_ns_per_step", gain_ns, "ns"});
    finding.metrics.push_back({"autocast_gain_ns_per_step", autocast_gain_ns, "ns"});
    finding.explanation += " On the " + std::string(peaks.name) + " the FP32 peak is " +
                           format_percent(peaks.fp32_flops / fix.target_flops) +
                           " of the target's; a kernel that keeps its share of the peak would "
                           "save " +
                           format_duration(gain_ns) + " per step (autocast to bf16/fp16: " +
                           format_duration(autocast_gain_ns) + ").";
    finding.recommendation = fix.what + ".";
    if (time.tf32_ns > 0) {
      // TF32 is on for some kernels already: the rest are the libraries' algorithm choice.
      finding.recommendation +=
          " TF32 already runs " + format_percent(time.tf32_ns / time.matrix_ns) +
          " of the matrix time here, so check the flag of the other library (cuBLAS matmuls "
          "and cuDNN convolutions have separate ones) and set torch.backends.cudnn.benchmark = "
          "True so that cuDNN can pick Tensor Core algorithms for the remaining convolutions.";
    }
  }
  return {finding};
}

extern constinit const Analysis kTensorCoresAnalysis{
    "tensorcores", kFindingKinds, {}, &findings_of<&find_tensor_core_use>};

}  // namespace tscope::analyzer
