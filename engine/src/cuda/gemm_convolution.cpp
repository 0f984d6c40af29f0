// CUDA's conv2d kernels in builds without cuDNN: the CPU's composition of im2col, matmul and
// sum, whose ops then run on the device (im2col kernels and cuBLAS); conv2d_bias_relu adds the
// bias and applies ReLU as two more device ops.

#include "cpu/cpu_kernels.h"
#include "cuda/cuda_kernels.h"
#include "dispatch.h"

namespace tscope::engine::cuda {

std::pair<Tensor, Tensor> conv2d(const Tensor& input, const Tensor& weight,
                                 const Conv2dGeometry& geometry) {
  return cpu::conv2d_by_image_gemms(input, weight, geometry);
}

std::pair<Tensor, Tensor> conv2d_bias_relu(const Tensor& input, const Tensor& weight,
                                           const Tensor& bias, const Conv2dGeometry& geometry) {
  auto [out, cols] = cpu::conv2d_by_image_gemms(input, weight, geometry);
  const Tensor shifted =
      run_op<BinaryKernel>(OpKind::kAdd, out, bias.reshape({1, weight.shape()[0], 1, 1}));
  return {run_op<UnaryKernel>(OpKind::kRelu, shifted), cols};
}

Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight,
                             const Conv2dGeometry& geometry) {
  return cpu::conv2d_backward_input_by_image_gemms(grad, weight, geometry);
}

Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& cols,
                              const Conv2dGeometry& geometry) {
  return cpu::conv2d_backward_weight_by_image_gemms(grad, cols, geometry);
}

}  // namespace tscope::engine::cuda
