#include "tscope/analyzer/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu_spans.h"
#include "trace_names.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/analyzer/device_peaks.h"
#include "tscope/analyzer/matrix_kernels.h"
#include "tscope/analyzer/op_work.h"
#include "tscope/analyzer/whatif.h"
#include "tscope/report/units.h"

namespace tscope::analyzer {
namespace {

constexpr std::string_view kRooflineGap = "roofline_gap";
constexpr std::string_view kRooflineUnavailable = "roofline_unavailable";
constexpr std::array kFindingKinds{kRooflineGap, kRooflineUnavailable};

constexpr std::size_t kMaxFindings = 5;
constexpr std::size_t kMaxEvidence = 10;
// Gaps under this share of the step are not worth a finding of their own.
constexpr double kMinGapShare = 0.005;

// An op whose work is known and that no enclosing op with known work already counts (aten::linear
// counts, its aten::addmm does not).
struct WorkedOp {
  EventRef span;
  TimeNs start = 0;
  TimeNs end = 0;
  OpWork work;
  double gpu_ns = 0;
  std::unordered_map<trace::StringId, double> kernel_ns;
};

// Ops of one name and input shapes, summed over the analyzed steps.
struct OpGroup {
  std::string label;
  double calls = 0;
  double flops = 0;
  double bytes = 0;
  double time_ns = 0;
  double attainable_ns = 0;
  std::string peak_name;
  double peak_flops = 0;
  std::unordered_map<trace::StringId, double> kernel_ns;
  std::vector<EventRef> evidence;
};

std::string shapes_text(const trace::OpView& op) {
  std::string text;
  for (const trace::ShapeLists::Shape shape : op.input_shapes) {
    if (shape.empty()) continue;
    text += text.empty() ? "[" : " [";
    for (std::size_t i = 0; i < shape.size(); ++i)
      text += (i ? ", " : "") + std::to_string(shape[i]);
    text += "]";
  }
  return text;
}

// Per host track, the outermost ops with known work, in time order.
std::vector<std::vector<WorkedOp>> worked_ops(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  std::vector<std::vector<WorkedOp>> per_track(trace.tracks().size());
  for (std::uint32_t track_index = 0; track_index < trace.tracks().size(); ++track_index) {
    const trace::Track& track = trace.track(track_index);
    if (track.info().kind != trace::TrackKind::kHostThread) continue;
    const trace::SpanColumns& spans = track.spans();
    TimeNs counted_until = 0;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      if (spans.category[i] != trace::Category::kCpuOp || spans.start[i] < counted_until) continue;
      if (context.steps().step_at(spans.start[i]) == context.steps().steps.size()) continue;
      const std::optional<trace::OpView> op = trace.op(track_index, i);
      if (!op) continue;
      const auto work = op_work(trace.string(spans.name[i]), *op);
      if (!work || work->flops <= 0) continue;
      per_track[track_index].push_back(
          {{EventKind::kSpan, track_index, i}, spans.start[i], spans.end(i), *work, 0, {}});
      counted_until = spans.end(i);
    }
  }
  return per_track;
}

// Adds each kernel's time to the worked op whose range holds its launch call.
void attribute_kernels(const AnalysisContext& context, std::vector<std::vector<WorkedOp>>& ops) {
  const trace::Trace& trace = context.trace();
  for_each_gpu_span(trace, [&](const trace::SpanColumns& spans, std::uint32_t i, EventRef span) {
    if (spans.category[i] != trace::Category::kKernel) return;
    const auto launch = context.launch_of(span);
    if (!launch || launch->track >= ops.size()) return;
    std::vector<WorkedOp>& candidates = ops[launch->track];
    const TimeNs launched_at = trace.track(launch->track).spans().start[launch->index];
    const auto after =
        std::upper_bound(candidates.begin(), candidates.end(), launched_at,
                         [](TimeNs time, const WorkedOp& op) { return time < op.start; });
    if (after == candidates.begin() || std::prev(after)->end < launched_at) return;
    WorkedOp& op = *std::prev(after);
    const double length = static_cast<double>(spans.end(i) - spans.start[i]);
    op.gpu_ns += length;
    op.kernel_ns[spans.name[i]] += length;
  });
}

// The kernel with the most time, and its share of the op's kernel time.
std::pair<trace::StringId, double> main_kernel(
    const std::unordered_map<trace::StringId, double>& kernel_ns) {
  std::pair<trace::StringId, double> best{trace::kEmptyString, 0};
  for (const auto& [name, ns] : kernel_ns)
    if (ns > best.second) best = {name, ns};
  return best;
}

struct Peak {
  std::string name;
  double flops = 0;
};

// The arithmetic peak of the unit and precision the op's main kernel ran on: an FP32 SIMT GEMM
// is measured against the FP32 peak, a TF32 Tensor Core GEMM against the TF32 one. Whether it
// should have used Tensor Cores is the Tensor Core analysis' question.
Peak gpu_peak(const DevicePeaks& device, std::string_view kernel) {
  const MatrixKernel matrix = classify_matrix_kernel(kernel);
  if (matrix.unit == MatrixUnit::kTensorCores) {
    switch (matrix.precision) {
      case MatrixPrecision::kTf32:
        if (device.tf32_matrix_flops > 0) return {"TF32 Tensor Core", device.tf32_matrix_flops};
        break;
      case MatrixPrecision::kBf16:
        if (device.bf16_matrix_flops > 0) return {"BF16 Tensor Core", device.bf16_matrix_flops};
        break;
      case MatrixPrecision::kFp32:
        if (device.fp32_matrix_flops > 0) return {"FP32 matrix", device.fp32_matrix_flops};
        break;
      default:
        break;
    }
    if (device.fp16_matrix_flops > 0) return {"FP16 Tensor Core", device.fp16_matrix_flops};
  }
  return {"FP32", device.fp32_flops};
}

Finding unavailable(std::string title, std::string explanation, std::string recommendation) {
  Finding finding;
  finding.kind = kRooflineUnavailable;
  finding.severity = Severity::kInfo;
  finding.title = std::move(title);
  finding.explanation = std::move(explanation);
  finding.recommendation = std::move(recommendation);
  return finding;
}

double metadata_number(const trace::Trace& trace, const std::string& key) {
  const auto found = trace.metadata().values.find(key);
  if (found == trace.metadata().values.end()) return 0;
  try {
    return std::stod(found->second);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string rate_text(double per_second, std::string_view unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  std::size_t prefix = 0;
  while (per_second >= 1000 && prefix + 1 < std::size(prefixes)) {
    per_second /= 1000;
    ++prefix;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s%.*s", per_second, prefixes[prefix],
                static_cast<int>(unit.size()), unit.data());
  return text;
}

Finding group_finding(const AnalysisContext& context, const OpGroup& group,
                      const std::string& device_name, double bandwidth) {
  const trace::Trace& trace = context.trace();
  const double steps = context.step_count();
  const double step_ns = context.steps().mean_ns();
  const double gap_ns = (group.time_ns - group.attainable_ns) / steps;
  const double share = step_ns > 0 ? gap_ns / step_ns : 0;
  const double achieved = group.flops / (group.time_ns * 1e-9);
  const double of_peak = achieved / group.peak_flops;
  const double intensity = group.bytes > 0 ? group.flops / group.bytes : 0;
  const bool memory_bound = group.bytes / bandwidth > group.flops / group.peak_flops;

  Finding finding;
  finding.kind = kRooflineGap;
  finding.severity = severity_for_share(share);
  finding.title = group.label + " reaches " + format_percent(of_peak) + " of the " + device_name +
                  "'s " + group.peak_name + " peak; " + format_duration(gap_ns) +
                  " per step above its roofline";
  finding.cost = {gap_ns, share, 0};
  finding.estimated_gain_ns_per_step = gap_ns;
  // On a GPU the group's kernels at their roofline; a CPU group's ops share their names with
  // other shapes, which no edit by name can single out.
  if (!group.kernel_ns.empty() && group.time_ns > 0) {
    std::vector<std::string> kernels;
    kernels.reserve(group.kernel_ns.size());
    for (const auto& [name, ns] : group.kernel_ns)
      kernels.emplace_back(trace.string(name));
    std::sort(kernels.begin(), kernels.end());
    finding.fix = {"kernel:" + exact_names_pattern(kernels) + "*" +
                   fmt::format("{:.4g}", group.attainable_ns / group.time_ns)};
  }
  finding.evidence = group.evidence;
  std::string kernel_text;
  const auto [kernel, kernel_ns] = main_kernel(group.kernel_ns);
  if (kernel != trace::kEmptyString) {
    // Per kernel only the matrix kernels' rate is meaningful: an op's flops are not split among
    // its kernels (a convolution gradient's data and weight passes are one op).
    double matrix_ns = 0;
    for (const auto& [name, ns] : group.kernel_ns)
      if (classify_matrix_kernel(trace.string(name)).unit != MatrixUnit::kNone) matrix_ns += ns;
    kernel_text = " Its main kernel, " + std::string(trace.string(kernel)) + ", takes " +
                  format_percent(kernel_ns / group.time_ns) + " of its GPU time";
    kernel_text += matrix_ns > 0 ? "; its GEMM and convolution kernels together run at " +
                                       rate_text(group.flops / (matrix_ns * 1e-9), "FLOP/s") + "."
                                 : ".";
  }
  finding.explanation = std::to_string(static_cast<std::uint64_t>(group.calls)) + " calls, " +
                        rate_text(group.flops / steps, "FLOP") + " and " +
                        format_bytes(group.bytes / steps) + " per step, arithmetic intensity " +
                        rate_text(intensity, "FLOP/B") + ": " + rate_text(achieved, "FLOP/s") +
                        " and " + rate_text(group.bytes / (group.time_ns * 1e-9), "B/s") +
                        " achieved against " + rate_text(group.peak_flops, "FLOP/s") + " and " +
                        rate_text(bandwidth, "B/s") + ". At the roofline (" +
                        (memory_bound ? "bandwidth" : "compute") + "-bound at this " +
                        "intensity) it would take " + format_duration(group.attainable_ns / steps) +
                        " per step, not " + format_duration(group.time_ns / steps) + "." +
                        kernel_text + " The gain is an upper bound: no kernel reaches the peak.";
  finding.recommendation =
      memory_bound
          ? "Bandwidth-bound: fuse it with its neighbours or keep its operands in lower "
            "precision so that fewer bytes move."
          : "Compute-bound yet far from the peak: check for small or oddly shaped operands "
            "(pad dimensions to multiples of 8, batch small products into one bmm), and for "
            "FP32 SIMT kernels where Tensor Cores apply (see the tensor_cores finding).";
  finding.metrics = {{"calls_per_step", group.calls / steps, "count"},
                     {"flops_per_step", group.flops / steps, "flop"},
                     {"bytes_per_step", group.bytes / steps, "bytes"},
                     {"time_ns_per_step", group.time_ns / steps, "ns"},
                     {"attainable_ns_per_step", group.attainable_ns / steps, "ns"},
                     {"achieved_flops_per_second", achieved, "flop/s"},
                     {"peak_flops_per_second", group.peak_flops, "flop/s"},
                     {"peak_bytes_per_second", bandwidth, "bytes/s"},
                     {"share_of_peak", of_peak, "ratio"},
                     {"arithmetic_intensity", intensity, "flop/byte"}};
  return finding;
}

}  // namespace

std::vector<Finding> find_roofline_gaps(const AnalysisContext& context) {
  const trace::Trace& trace = context.trace();
  std::vector<std::vector<WorkedOp>> ops = worked_ops(context);
  std::size_t op_count = 0;
  for (const auto& track_ops : ops)
    op_count += track_ops.size();
  if (op_count == 0) return {};

  std::string device_name;
  double bandwidth = 0;
  std::optional<DevicePeaks> device;
  if (context.has_gpu()) {
    const auto named = trace_device(trace);
    if (!named) {
      return {unavailable(
          "No roofline: the trace does not name its GPU",
          "The trace records no device name (Kineto's deviceProperties), so the device's peak "
          "FLOP/s and bandwidth are unknown.",
          "Profile with a PyTorch whose Kineto writes deviceProperties (1.10 or later).")};
    }
    if (!named->peaks) {
      return {unavailable("No roofline: the GPU '" + named->name + "' is not in the device table",
                          "The roofline needs the device's peak FLOP/s and memory bandwidth, and "
                          "the device table (docs/analyzer.md) does not list this GPU.",
                          "Add the GPU's datasheet figures to analyzer/src/device_peaks.cpp.")};
    }
    device = named->peaks;
    device_name = std::string(device->name);
    bandwidth = device->memory_bytes_per_second;
    attribute_kernels(context, ops);
  } else {
    const double flops = context.options().cpu_peak_flops > 0
                             ? context.options().cpu_peak_flops
                             : metadata_number(trace, "cpu.peak_flops");
    bandwidth = context.options().cpu_peak_bytes_per_second > 0
                    ? context.options().cpu_peak_bytes_per_second
                    : metadata_number(trace, "cpu.peak_bytes_per_second");
    if (flops <= 0 || bandwidth <= 0) {
      return {unavailable("No roofline: the CPU's peak is not known",
                          "A CPU trace is compared against the peak of the CPU it ran on, which "
                          "is measured rather than assumed.",
                          "Run `tscope analyze --cpu-peak measure` on the machine that recorded "
                          "the trace.")};
    }
    device = DevicePeaks{};
    device->fp32_flops = flops;
    device->memory_bytes_per_second = bandwidth;
    device_name = "CPU";
  }

  std::map<std::string, OpGroup> groups;
  for (const auto& track_ops : ops) {
    for (const WorkedOp& op : track_ops) {
      const double time_ns = context.has_gpu() ? op.gpu_ns : static_cast<double>(op.end - op.start);
      if (time_ns <= 0) continue;
      const std::string name(trace.string(trace.track(op.span.track).spans().name[op.span.index]));
      const std::string shapes = shapes_text(*trace.op(op.span.track, op.span.index));
      std::string label = name;
      if (!shapes.empty()) label.append(" ").append(shapes);
      OpGroup& group = groups[label];
      if (group.calls == 0) group.label = std::move(label);
      const Peak peak = context.has_gpu()
                            ? gpu_peak(*device, trace.string(main_kernel(op.kernel_ns).first))
                            : Peak{"FP32", device->fp32_flops};
      if (peak.flops <= 0) continue;
      ++group.calls;
      group.flops += op.work.flops;
      group.bytes += op.work.bytes;
      group.time_ns += time_ns;
      group.attainable_ns += 1e9 * std::max(op.work.flops / peak.flops, op.work.bytes / bandwidth);
      group.peak_name = peak.name;
      group.peak_flops = peak.flops;
      for (const auto& [kernel, ns] : op.kernel_ns)
        group.kernel_ns[kernel] += ns;
      if (group.evidence.size() < kMaxEvidence) group.evidence.push_back(op.span);
    }
  }

  std::vector<const OpGroup*> ranked;
  for (const auto& [label, group] : groups)
    if (group.calls > 0 && group.time_ns > group.attainable_ns) ranked.push_back(&group);
  std::sort(ranked.begin(), ranked.end(), [](const OpGroup* a, const OpGroup* b) {
    return a->time_ns - a->attainable_ns > b->time_ns - b->attainable_ns;
  });
  std::vector<Finding> findings;
  const double step_ns = context.steps().mean_ns();
  for (const OpGroup* group : ranked) {
    if (findings.size() == kMaxFindings) break;
    const double gap_share =
        (group->time_ns - group->attainable_ns) / context.step_count() / std::max(step_ns, 1.0);
    if (gap_share < kMinGapShare) break;
    findings.push_back(group_finding(context, *group, device_name, bandwidth));
  }
  return findings;
}

extern constinit const Analysis kRooflineAnalysis{
    "roofline", kFindingKinds, {}, &findings_of<&find_roofline_gaps>};

}  // namespace tscope::analyzer
