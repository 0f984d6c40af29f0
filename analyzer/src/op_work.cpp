#include "tscope/analyzer/op_work.h"

#include <functional>
#include <numeric>

namespace tscope::analyzer {
namespace {

using Shape = trace::ShapeLists::Shape;

// Kineto's shapes carry no element type here; float32 is what an un-autocast run moves. Bytes
// only matter when an op is bandwidth-bound, which matrix products rarely are.
constexpr double kBytesPerElement = 4;

double elements(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), 1.0, [](double product, std::int64_t extent) {
    return product * static_cast<double>(extent);
  });
}

bool all_positive(const Shape& shape) {
  for (const std::int64_t extent : shape)
    if (extent <= 0) return false;
  return !shape.empty();
}

// A product of [batch..., m, k] by [k, n] or [batch..., k, n]: 2·batch·m·k·n.
std::optional<OpWork> matrix_product(const Shape& a, const Shape& b) {
  if (a.size() < 2 || b.size() < 2 || !all_positive(a) || !all_positive(b)) return std::nullopt;
  const double m = static_cast<double>(a[a.size() - 2]);
  const double k = static_cast<double>(a.back());
  const double n = static_cast<double>(b.back());
  if (static_cast<double>(b[b.size() - 2]) != k) return std::nullopt;
  const double batch_a = elements(a) / (m * k);
  const double batch_b = elements(b) / (k * n);
  const double batch = std::max(batch_a, batch_b);
  return OpWork{2 * batch * m * k * n,
                kBytesPerElement * (elements(a) + elements(b) + batch * m * n)};
}

// x [..., k] times weight [n, k]ᵀ, as aten::linear takes them.
std::optional<OpWork> linear(const Shape& x, const Shape& weight) {
  if (x.empty() || weight.size() != 2 || !all_positive(x) || !all_positive(weight))
    return std::nullopt;
  const double k = static_cast<double>(x.back());
  const double n = static_cast<double>(weight[0]);
  if (static_cast<double>(weight[1]) != k) return std::nullopt;
  const double rows = elements(x) / k;
  return OpWork{2 * rows * k * n, kBytesPerElement * (elements(x) + elements(weight) + rows * n)};
}

// One convolution pass (data or weight gradient) over grad_output [n, k, p, q] and weight
// [k, c/groups, r, s]: 2·n·k·p·q·(c/groups)·r·s, the same count as the forward pass.
std::optional<OpWork> convolution_pass(const Shape& grad_output, const Shape& weight,
                                       const Shape& other) {
  if (grad_output.size() < 3 || weight.size() != grad_output.size() || !all_positive(grad_output) ||
      !all_positive(weight) || grad_output[1] != weight[0])
    return std::nullopt;
  const double flops =
      2 * elements(grad_output) * elements(weight) / static_cast<double>(weight[0]);
  return OpWork{flops,
                kBytesPerElement * (elements(grad_output) + elements(weight) + elements(other))};
}

std::string_view without_namespace(std::string_view name) {
  if (name.starts_with("aten::")) name.remove_prefix(6);
  return name;
}

std::optional<OpWork> from_shapes(std::string_view name, const trace::ShapeLists::List& in) {
  const auto shape = [&](std::size_t i) { return i < in.size() ? in[i] : Shape{}; };
  if (name == "mm" || name == "bmm" || name == "matmul") return matrix_product(shape(0), shape(1));
  if (name == "addmm" || name == "baddbmm") return matrix_product(shape(1), shape(2));
  if (name == "linear") return linear(shape(0), shape(1));
  // [input, grad_output, weight]: the data and the weight gradient, two passes.
  if (name == "cudnn_convolution_backward" || name == "convolution_backward") {
    auto pass = convolution_pass(shape(1), shape(2), shape(0));
    if (pass) pass->flops *= 2;
    return pass;
  }
  // [input size, grad_output, weight]: the data gradient only.
  if (name == "cudnn_convolution_backward_input") return convolution_pass(shape(1), shape(2), {});
  return std::nullopt;
}

}  // namespace

std::optional<OpWork> op_work(std::string_view op_name, const trace::OpView& op) {
  if (op.flops > 0) {
    return OpWork{static_cast<double>(op.flops),
                  static_cast<double>(op.bytes_read + op.bytes_written)};
  }
  return from_shapes(without_namespace(op_name), op.input_shapes);
}

}  // namespace tscope::analyzer
