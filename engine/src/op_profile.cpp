#include "op_profile.h"

#include <algorithm>
#include <span>

#include "dispatch.h"

namespace tscope::engine {
namespace {

// Ops that only move or set data; the rest do about one operation per element of their largest
// operand, except matrix products.
bool moves_data_only(OpKind op) {
  switch (op) {
    case OpKind::kIm2col:
    case OpKind::kCol2im:
    case OpKind::kCopy:
    case OpKind::kFill:
      return true;
    default:
      return false;
  }
}

std::uint64_t shape_elements(std::span<const std::int64_t> shape) {
  std::uint64_t elements = 1;
  for (const std::int64_t extent : shape)
    elements *= static_cast<std::uint64_t>(extent);
  return elements;
}

}  // namespace

OpProfile::OpProfile(OpKind op) : op_(op), range_(op_name(op)) {}

void OpProfile::Side::add(const Tensor& tensor) {
  if (!tensor.defined()) return;
  if (listed_count < kMaxTensors) listed[listed_count++] = {tensor.id(), tensor.shape()};
  const auto tensor_elements = static_cast<std::uint64_t>(tensor.numel());
  elements += tensor_elements;
  largest_elements = std::max(largest_elements, tensor_elements);
  bytes += tensor_elements * element_size(tensor.dtype());
}

void OpProfile::add_read(const Tensor& tensor) {
  read_.add(tensor);
}

void OpProfile::add_written(const Tensor& tensor) {
  written_.add(tensor);
}

void OpProfile::finish() {
  if (!recording()) return;
  std::uint64_t flops = 0;
  const std::span<const profiler::OpTensor> inputs = read_.tensors();
  const std::span<const profiler::OpTensor> outputs = written_.tensors();
  if (op_ == OpKind::kMatmul && !inputs.empty() && !inputs[0].shape.empty()) {
    // Each output element is a dot product over the inner dimension: a multiply and an add each.
    flops = 2 * written_.elements * static_cast<std::uint64_t>(inputs[0].shape.back());
  } else if ((op_ == OpKind::kConv2d || op_ == OpKind::kConv2dBiasRelu ||
              op_ == OpKind::kConv2dBackwardInput || op_ == OpKind::kConv2dBackwardWeight) &&
             inputs.size() >= 2 && !outputs.empty()) {
    // A multiply and an add per output pixel per filter tap: 2 N OC OH OW C KH KW in all three.
    // The forward also returns the unfolded input it saves for the weight gradient, so its output
    // is the first written tensor, not all of them. The fused forward adds the bias and the ReLU:
    // two more per output.
    const bool forward = op_ == OpKind::kConv2d || op_ == OpKind::kConv2dBiasRelu;
    const std::span<const std::int64_t> weight =
        op_ == OpKind::kConv2dBackwardWeight ? outputs[0].shape : inputs[1].shape;
    const std::uint64_t output_pixels =
        forward ? shape_elements(outputs[0].shape) : shape_elements(inputs[0].shape);
    if (!weight.empty() && weight[0] > 0) {
      flops = 2 * output_pixels * (shape_elements(weight) / static_cast<std::uint64_t>(weight[0]));
    }
    if (op_ == OpKind::kConv2dBiasRelu) flops += 2 * output_pixels;
  } else if (!moves_data_only(op_)) {
    flops = std::max(read_.largest_elements, written_.elements);
  }
  range_.finish({.inputs = inputs,
                 .outputs = outputs,
                 .flops = flops,
                 .bytes_read = read_.bytes,
                 .bytes_written = written_.bytes});
}

}  // namespace tscope::engine
