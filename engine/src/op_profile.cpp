#include "op_profile.h"

#include <algorithm>
#include <span>

#include "dispatch.h"

namespace tscope::engine {
namespace {

std::uint64_t element_count(const Tensor& tensor) {
  return static_cast<std::uint64_t>(tensor.numel());
}

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

void OpProfile::add_read(const Tensor& tensor) {
  if (!tensor.defined()) return;
  if (read_count_ < kMaxTensors) read_[read_count_++] = {tensor.id(), tensor.shape()};
  largest_read_elements_ = std::max(largest_read_elements_, element_count(tensor));
  bytes_read_ += element_count(tensor) * element_size(tensor.dtype());
}

void OpProfile::add_written(const Tensor& tensor) {
  if (!tensor.defined()) return;
  if (written_count_ < kMaxTensors) written_[written_count_++] = {tensor.id(), tensor.shape()};
  written_elements_ += element_count(tensor);
  bytes_written_ += element_count(tensor) * element_size(tensor.dtype());
}

void OpProfile::finish() {
  if (!recording()) return;
  std::uint64_t flops = 0;
  if (op_ == OpKind::kMatmul && read_count_ > 0 && !read_[0].shape.empty()) {
    // Each output element is a dot product over the inner dimension: a multiply and an add each.
    flops = 2 * written_elements_ * static_cast<std::uint64_t>(read_[0].shape.back());
  } else if ((op_ == OpKind::kConv2d || op_ == OpKind::kConv2dBiasRelu ||
              op_ == OpKind::kConv2dBackwardInput || op_ == OpKind::kConv2dBackwardWeight) &&
             read_count_ >= 2 && written_count_ >= 1) {
    // A multiply and an add per output pixel per filter tap: 2 N OC OH OW C KH KW in all three.
    // The forward also returns the unfolded input it saves for the weight gradient, so its output
    // is the first written tensor, not all of them. The fused forward adds the bias and the ReLU:
    // two more per output.
    const bool forward = op_ == OpKind::kConv2d || op_ == OpKind::kConv2dBiasRelu;
    const std::span<const std::int64_t> weight =
        op_ == OpKind::kConv2dBackwardWeight ? written_[0].shape : read_[1].shape;
    const std::uint64_t outputs =
        forward ? shape_elements(written_[0].shape) : shape_elements(read_[0].shape);
    if (!weight.empty() && weight[0] > 0) {
      flops = 2 * outputs * (shape_elements(weight) / static_cast<std::uint64_t>(weight[0]));
    }
    if (op_ == OpKind::kConv2dBiasRelu) flops += 2 * outputs;
  } else if (!moves_data_only(op_)) {
    flops = std::max(largest_read_elements_, written_elements_);
  }
  range_.finish({.inputs = {read_.data(), read_count_},
                 .outputs = {written_.data(), written_count_},
                 .flops = flops,
                 .bytes_read = bytes_read_,
                 .bytes_written = bytes_written_});
}

}  // namespace tscope::engine
