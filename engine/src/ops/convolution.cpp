// 2-D convolution and 2-D max pooling: shape checks and autograd; how a convolution is computed
// is up to the device's kernel (im2col + GEMM on the CPU, cuDNN on CUDA).

#include "autograd/graph.h"
#include "dispatch.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

std::int64_t output_extent(std::int64_t input, std::int64_t kernel, std::int64_t stride,
                           std::int64_t padding, const char* op) {
  const std::int64_t span = input + 2 * padding - kernel;
  if (span < 0) {
    throw EngineError(std::string(op) + ": kernel of " + std::to_string(kernel) +
                      " does not fit an input of " + std::to_string(input) + " with padding " +
                      std::to_string(padding));
  }
  return span / stride + 1;
}

Conv2dGeometry conv2d_geometry(const Tensor& input, const Tensor& weight, Conv2dOptions options,
                               const char* op) {
  if (input.dim() != 4 || weight.dim() != 4 || input.shape()[1] != weight.shape()[1]) {
    throw EngineError(std::string(op) +
                      ": expected input [N, C, H, W] and weight [OC, C, KH, KW], got " +
                      shape_to_string(input.shape()) + " and " + shape_to_string(weight.shape()));
  }
  if (options.stride < 1 || options.padding < 0) {
    throw EngineError(std::string(op) + ": stride must be positive and padding non-negative");
  }
  Conv2dGeometry geometry{.batch = input.shape()[0],
                          .channels = input.shape()[1],
                          .height = input.shape()[2],
                          .width = input.shape()[3],
                          .kernel_height = weight.shape()[2],
                          .kernel_width = weight.shape()[3],
                          .stride = options.stride,
                          .padding = options.padding};
  geometry.out_height =
      output_extent(geometry.height, geometry.kernel_height, options.stride, options.padding, op);
  geometry.out_width =
      output_extent(geometry.width, geometry.kernel_width, options.stride, options.padding, op);
  return geometry;
}

void require_channel_bias(const Tensor& bias, std::int64_t out_channels, const char* op) {
  if (bias.shape() != Shape{out_channels}) {
    throw EngineError(std::string(op) + ": bias must be [" + std::to_string(out_channels) +
                      "], got " + shape_to_string(bias.shape()));
  }
}

// The convolution's input and weight gradients from the gradient of its output, as needed;
// `weight_grad_operand` is what the forward kernel saved for the weight gradient, else its input.
std::pair<Tensor, Tensor> conv2d_gradients(const Tensor& grad, bool input_needed,
                                           bool weight_needed, const Tensor& weight,
                                           const Tensor& weight_grad_operand,
                                           const Conv2dGeometry& geometry) {
  return {input_needed
              ? run_op<Conv2dBackwardKernel>(OpKind::kConv2dBackwardInput, grad, weight, geometry)
              : Tensor(),
          weight_needed ? run_op<Conv2dBackwardKernel>(OpKind::kConv2dBackwardWeight, grad,
                                                       weight_grad_operand, geometry)
                        : Tensor()};
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              Conv2dOptions options) {
  const Conv2dGeometry geometry = conv2d_geometry(input, weight, options, "conv2d");
  const std::int64_t out_channels = weight.shape()[0];
  auto [out, saved] = run_op<Conv2dKernel>(OpKind::kConv2d, input, weight, geometry);
  record_if_needed(
      out, "Conv2dBackward", {input, weight},
      [weight_grad_operand = saved.defined() ? saved : input.detach(), weight = weight.detach(),
       geometry](const Tensor& grad, const GradNeeds& needs) {
        auto [input_grad, weight_grad] =
            conv2d_gradients(grad, needs[0], needs[1], weight, weight_grad_operand, geometry);
        return std::vector<Tensor>{input_grad, weight_grad};
      });
  if (!bias) return out;
  require_channel_bias(*bias, out_channels, "conv2d");
  return add(out, bias->reshape({1, out_channels, 1, 1}));
}

Tensor conv2d_bias_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        Conv2dOptions options) {
  const Conv2dGeometry geometry = conv2d_geometry(input, weight, options, "conv2d_bias_relu");
  const std::int64_t out_channels = weight.shape()[0];
  require_channel_bias(bias, out_channels, "conv2d_bias_relu");
  auto [out, saved] =
      run_op<Conv2dBiasReluKernel>(OpKind::kConv2dBiasRelu, input, weight, bias, geometry);
  // ReLU's gradient is decided by the output's sign; the bias gradient is add's (sum_to).
  record_if_needed(
      out, "Conv2dBiasReluBackward", {input, weight, bias},
      [weight_grad_operand = saved.defined() ? saved : input.detach(), weight = weight.detach(),
       activated = out.detach(), geometry,
       out_channels](const Tensor& grad, const GradNeeds& needs) {
        const Tensor pre_activation_grad =
            run_op<BinaryKernel>(OpKind::kReluBackward, grad, activated);
        auto [input_grad, weight_grad] = conv2d_gradients(pre_activation_grad, needs[0], needs[1],
                                                          weight, weight_grad_operand, geometry);
        return std::vector<Tensor>{
            input_grad, weight_grad,
            needs[2] ? sum_to(pre_activation_grad, {1, out_channels, 1, 1}).reshape({out_channels})
                     : Tensor()};
      });
  return out;
}

Tensor max_pool2d(const Tensor& input, std::int64_t kernel_size,
                  std::optional<std::int64_t> stride) {
  const std::int64_t step = stride.value_or(kernel_size);
  if (input.dim() != 4 || kernel_size < 1 || step < 1) {
    throw EngineError(
        "max_pool2d: expected input [N, C, H, W] and positive kernel and stride, "
        "got " +
        shape_to_string(input.shape()));
  }
  Pool2dGeometry geometry{.batch = input.shape()[0],
                          .channels = input.shape()[1],
                          .height = input.shape()[2],
                          .width = input.shape()[3],
                          .kernel_height = kernel_size,
                          .kernel_width = kernel_size,
                          .stride = step};
  geometry.out_height = output_extent(geometry.height, kernel_size, step, 0, "max_pool2d");
  geometry.out_width = output_extent(geometry.width, kernel_size, step, 0, "max_pool2d");
  auto [values, indices] = run_op<Pool2dKernel>(OpKind::kMaxPool2d, input, geometry);
  record_if_needed(values, "MaxPool2dBackward", {input},
                   [positions = indices, geometry](const Tensor& grad, const GradNeeds&) {
                     return std::vector<Tensor>{run_op<Pool2dBackwardKernel>(
                         OpKind::kMaxPool2dBackward, grad, positions, geometry)};
                   });
  return values;
}

}  // namespace tscope::engine
