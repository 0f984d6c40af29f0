#include "cpu/register_cpu_kernels.h"

#include "cpu/cpu_kernels.h"
#include "ops/conv2d_by_gemm.h"
#include "ops/linear_activation_by_ops.h"

namespace tscope::engine {

void register_cpu_kernels(Dispatcher& dispatcher) {
  constexpr DeviceType kCpu = DeviceType::kCpu;
  auto unary = [&](OpKind op, UnaryKernel kernel) { dispatcher.register_kernel(op, kCpu, kernel); };
  auto unary_scalar = [&](OpKind op, UnaryScalarKernel kernel) {
    dispatcher.register_kernel(op, kCpu, kernel);
  };
  auto binary = [&](OpKind op, BinaryKernel kernel) {
    dispatcher.register_kernel(op, kCpu, kernel);
  };

  unary(OpKind::kNeg, cpu::neg);
  unary(OpKind::kExp, cpu::exp);
  unary(OpKind::kLog, cpu::log);
  unary(OpKind::kSqrt, cpu::sqrt);
  unary(OpKind::kRelu, cpu::relu);
  unary(OpKind::kGelu, cpu::gelu);
  unary(OpKind::kSigmoid, cpu::sigmoid);
  unary(OpKind::kTanh, cpu::tanh);
  unary(OpKind::kSoftmax, cpu::softmax);
  unary(OpKind::kLogSoftmax, cpu::log_softmax);

  unary_scalar(OpKind::kAddScalar, cpu::add_scalar);
  unary_scalar(OpKind::kMulScalar, cpu::mul_scalar);
  unary_scalar(OpKind::kPowScalar, cpu::pow_scalar);

  binary(OpKind::kAdd, cpu::add);
  binary(OpKind::kSub, cpu::sub);
  binary(OpKind::kMul, cpu::mul);
  binary(OpKind::kDiv, cpu::div);
  binary(OpKind::kReluBackward, cpu::relu_backward);
  binary(OpKind::kGeluBackward, cpu::gelu_backward);
  binary(OpKind::kSigmoidBackward, cpu::sigmoid_backward);
  binary(OpKind::kTanhBackward, cpu::tanh_backward);
  binary(OpKind::kSoftmaxBackward, cpu::softmax_backward);
  binary(OpKind::kLogSoftmaxBackward, cpu::log_softmax_backward);
  binary(OpKind::kMatmul, cpu::matmul);
  binary(OpKind::kNllLoss, cpu::nll_loss);

  dispatcher.register_kernel<ReduceKernel>(OpKind::kSum, kCpu, cpu::sum);
  dispatcher.register_kernel<ArgReduceKernel>(OpKind::kMax, kCpu, cpu::max);
  dispatcher.register_kernel<ArgReduceBackwardKernel>(OpKind::kMaxBackward, kCpu,
                                                      cpu::max_backward);
  dispatcher.register_kernel<Conv2dLayoutKernel>(OpKind::kIm2col, kCpu, cpu::im2col);
  dispatcher.register_kernel<Conv2dLayoutKernel>(OpKind::kCol2im, kCpu, cpu::col2im);
  dispatcher.register_kernel<Conv2dKernel>(OpKind::kConv2d, kCpu, conv2d_by_gemm);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardInput, kCpu,
                                                   conv2d_backward_input_by_gemm);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardWeight, kCpu,
                                                   conv2d_backward_weight_by_gemm);
  dispatcher.register_kernel<LinearActivationKernel>(OpKind::kLinearActivation, kCpu,
                                                     cpu::linear_activation);
  dispatcher.register_kernel<LinearWeightBiasBackwardKernel>(
      OpKind::kLinearWeightBiasBackward, kCpu, linear_weight_bias_backward_by_ops);
  dispatcher.register_kernel<Pool2dKernel>(OpKind::kMaxPool2d, kCpu, cpu::max_pool2d);
  dispatcher.register_kernel<Pool2dBackwardKernel>(OpKind::kMaxPool2dBackward, kCpu,
                                                   cpu::max_pool2d_backward);
  dispatcher.register_kernel<NllBackwardKernel>(OpKind::kNllLossBackward, kCpu,
                                                cpu::nll_loss_backward);
  dispatcher.register_kernel<CrossEntropyKernel>(OpKind::kCrossEntropy, kCpu, cpu::cross_entropy);
  dispatcher.register_kernel<CrossEntropyBackwardKernel>(OpKind::kCrossEntropyBackward, kCpu,
                                                         cpu::cross_entropy_backward);
  dispatcher.register_kernel<LayerNormKernel>(OpKind::kLayerNorm, kCpu, cpu::layer_norm);
  dispatcher.register_kernel<LayerNormBackwardKernel>(OpKind::kLayerNormBackward, kCpu,
                                                      cpu::layer_norm_backward);

  dispatcher.register_kernel<InplaceBinaryKernel>(OpKind::kCopy, kCpu, cpu::copy);
  dispatcher.register_kernel<InplaceScalarKernel>(OpKind::kFill, kCpu, cpu::fill);
  dispatcher.register_kernel<InplaceBinaryScalarKernel>(OpKind::kAddInplace, kCpu,
                                                        cpu::add_inplace);
  dispatcher.register_kernel<InplaceScalarKernel>(OpKind::kMulScalarInplace, kCpu,
                                                  cpu::mul_scalar_inplace);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kUniform, kCpu, cpu::uniform);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kNormal, kCpu, cpu::normal);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kBernoulliMask, kCpu, cpu::bernoulli_mask);
  dispatcher.register_kernel<BiasGeluDropoutKernel>(OpKind::kBiasGeluDropout, kCpu,
                                                    cpu::bias_gelu_dropout);
  dispatcher.register_kernel<BiasGeluDropoutBackwardKernel>(OpKind::kBiasGeluDropoutBackward, kCpu,
                                                            cpu::bias_gelu_dropout_backward);
  dispatcher.register_kernel<AdamStepKernel>(OpKind::kAdamStep, kCpu, cpu::adam_step);
  dispatcher.register_kernel<SgdStepKernel>(OpKind::kSgdStep, kCpu, cpu::sgd_step);
}

}  // namespace tscope::engine
