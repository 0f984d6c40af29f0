#include "cuda/register_cuda_kernels.h"

#include "cuda/cuda_kernels.h"
#include "ops/conv2d_by_gemm.h"

namespace tscope::engine {

void register_cuda_kernels(Dispatcher& dispatcher) {
  constexpr DeviceType kCuda = DeviceType::kCuda;
  auto unary = [&](OpKind op, UnaryKernel kernel) {
    dispatcher.register_kernel(op, kCuda, kernel);
  };
  auto unary_scalar = [&](OpKind op, UnaryScalarKernel kernel) {
    dispatcher.register_kernel(op, kCuda, kernel);
  };
  auto binary = [&](OpKind op, BinaryKernel kernel) {
    dispatcher.register_kernel(op, kCuda, kernel);
  };

  unary(OpKind::kNeg, cuda::neg);
  unary(OpKind::kExp, cuda::exp);
  unary(OpKind::kLog, cuda::log);
  unary(OpKind::kSqrt, cuda::sqrt);
  unary(OpKind::kRelu, cuda::relu);
  unary(OpKind::kGelu, cuda::gelu);
  unary(OpKind::kSigmoid, cuda::sigmoid);
  unary(OpKind::kTanh, cuda::tanh);
  unary(OpKind::kSoftmax, cuda::softmax);
  unary(OpKind::kLogSoftmax, cuda::log_softmax);

  unary_scalar(OpKind::kAddScalar, cuda::add_scalar);
  unary_scalar(OpKind::kMulScalar, cuda::mul_scalar);
  unary_scalar(OpKind::kPowScalar, cuda::pow_scalar);

  binary(OpKind::kAdd, cuda::add);
  binary(OpKind::kSub, cuda::sub);
  binary(OpKind::kMul, cuda::mul);
  binary(OpKind::kDiv, cuda::div);
  binary(OpKind::kReluBackward, cuda::relu_backward);
  binary(OpKind::kGeluBackward, cuda::gelu_backward);
  binary(OpKind::kSigmoidBackward, cuda::sigmoid_backward);
  binary(OpKind::kTanhBackward, cuda::tanh_backward);
  binary(OpKind::kSoftmaxBackward, cuda::softmax_backward);
  binary(OpKind::kLogSoftmaxBackward, cuda::log_softmax_backward);
  binary(OpKind::kMatmul, cuda::matmul);
  binary(OpKind::kNllLoss, cuda::nll_loss);

  dispatcher.register_kernel<ReduceKernel>(OpKind::kSum, kCuda, cuda::sum);
  dispatcher.register_kernel<ArgReduceKernel>(OpKind::kMax, kCuda, cuda::max);
  dispatcher.register_kernel<ArgReduceBackwardKernel>(OpKind::kMaxBackward, kCuda,
                                                      cuda::max_backward);
  dispatcher.register_kernel<Conv2dLayoutKernel>(OpKind::kIm2col, kCuda, cuda::im2col);
  dispatcher.register_kernel<Conv2dLayoutKernel>(OpKind::kCol2im, kCuda, cuda::col2im);
#if TSCOPE_WITH_CUDNN
  dispatcher.register_kernel<Conv2dKernel>(OpKind::kConv2d, kCuda, cuda::conv2d);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardInput, kCuda,
                                                   cuda::conv2d_backward_input);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardWeight, kCuda,
                                                   cuda::conv2d_backward_weight);
#else
  // Built without cuDNN: im2col + cuBLAS, composed as on the CPU.
  dispatcher.register_kernel<Conv2dKernel>(OpKind::kConv2d, kCuda, conv2d_by_gemm);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardInput, kCuda,
                                                   conv2d_backward_input_by_gemm);
  dispatcher.register_kernel<Conv2dBackwardKernel>(OpKind::kConv2dBackwardWeight, kCuda,
                                                   conv2d_backward_weight_by_gemm);
#endif
  dispatcher.register_kernel<Pool2dKernel>(OpKind::kMaxPool2d, kCuda, cuda::max_pool2d);
  dispatcher.register_kernel<Pool2dBackwardKernel>(OpKind::kMaxPool2dBackward, kCuda,
                                                   cuda::max_pool2d_backward);
  dispatcher.register_kernel<NllBackwardKernel>(OpKind::kNllLossBackward, kCuda,
                                                cuda::nll_loss_backward);
  dispatcher.register_kernel<CrossEntropyKernel>(OpKind::kCrossEntropy, kCuda, cuda::cross_entropy);
  dispatcher.register_kernel<CrossEntropyBackwardKernel>(OpKind::kCrossEntropyBackward, kCuda,
                                                         cuda::cross_entropy_backward);
  dispatcher.register_kernel<LayerNormKernel>(OpKind::kLayerNorm, kCuda, cuda::layer_norm);
  dispatcher.register_kernel<LayerNormBackwardKernel>(OpKind::kLayerNormBackward, kCuda,
                                                      cuda::layer_norm_backward);

  dispatcher.register_kernel<InplaceBinaryKernel>(OpKind::kCopy, kCuda, cuda::copy);
  dispatcher.register_kernel<InplaceScalarKernel>(OpKind::kFill, kCuda, cuda::fill);
  dispatcher.register_kernel<InplaceBinaryScalarKernel>(OpKind::kAddInplace, kCuda,
                                                        cuda::add_inplace);
  dispatcher.register_kernel<InplaceScalarKernel>(OpKind::kMulScalarInplace, kCuda,
                                                  cuda::mul_scalar_inplace);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kUniform, kCuda, cuda::uniform);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kNormal, kCuda, cuda::normal);
  dispatcher.register_kernel<RandomFillKernel>(OpKind::kBernoulliMask, kCuda, cuda::bernoulli_mask);
  dispatcher.register_kernel<BiasGeluDropoutKernel>(OpKind::kBiasGeluDropout, kCuda,
                                                    cuda::bias_gelu_dropout);
  dispatcher.register_kernel<BiasGeluDropoutBackwardKernel>(OpKind::kBiasGeluDropoutBackward, kCuda,
                                                            cuda::bias_gelu_dropout_backward);
  dispatcher.register_kernel<AdamStepKernel>(OpKind::kAdamStep, kCuda, cuda::adam_step);
  dispatcher.register_kernel<SgdStepKernel>(OpKind::kSgdStep, kCuda, cuda::sgd_step);
  dispatcher.register_kernel<LinearActivationKernel>(OpKind::kLinearActivation, kCuda,
                                                     cuda::linear_activation);
  dispatcher.register_kernel<LinearWeightBiasBackwardKernel>(
      OpKind::kLinearWeightBiasBackward, kCuda, cuda::linear_weight_bias_backward);
}

}  // namespace tscope::engine
