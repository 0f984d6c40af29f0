#pragma once
// The engine's one list of ops. Each line names an op's OpKind, the name traces and errors show,
// the kernel signature (kernel_signatures.h) it is called with and the name of its kernel in each
// backend's namespace (cpu::, cuda::). OpKind, op_name(), both backends' kernel declarations and
// their registrations are all generated from this list, so adding an op is one line here plus
// its kernels.
//
// TSCOPE_ENGINE_OPS(OP) calls OP(Kind, "name", Signature, kernel) once per op, in OpKind order.

#define TSCOPE_ENGINE_OPS(OP)                                                                      \
  OP(Add, "add", BinaryKernel, add)                                                                \
  OP(Sub, "sub", BinaryKernel, sub)                                                                \
  OP(Mul, "mul", BinaryKernel, mul)                                                                \
  OP(Div, "div", BinaryKernel, div)                                                                \
  OP(AddScalar, "add_scalar", UnaryScalarKernel, add_scalar)                                       \
  OP(MulScalar, "mul_scalar", UnaryScalarKernel, mul_scalar)                                       \
  OP(PowScalar, "pow_scalar", UnaryScalarKernel, pow_scalar)                                       \
  OP(Neg, "neg", UnaryKernel, neg)                                                                 \
  OP(Exp, "exp", UnaryKernel, exp)                                                                 \
  OP(Log, "log", UnaryKernel, log)                                                                 \
  OP(Sqrt, "sqrt", UnaryKernel, sqrt)                                                              \
  OP(Relu, "relu", UnaryKernel, relu)                                                              \
  OP(Gelu, "gelu", UnaryKernel, gelu)                                                              \
  OP(Sigmoid, "sigmoid", UnaryKernel, sigmoid)                                                     \
  OP(Tanh, "tanh", UnaryKernel, tanh)                                                              \
  OP(ReluBackward, "relu_backward", BinaryKernel, relu_backward)                                   \
  OP(GeluBackward, "gelu_backward", BinaryKernel, gelu_backward)                                   \
  OP(SigmoidBackward, "sigmoid_backward", BinaryKernel, sigmoid_backward)                          \
  OP(TanhBackward, "tanh_backward", BinaryKernel, tanh_backward)                                   \
  OP(Sum, "sum", ReduceKernel, sum)                                                                \
  OP(Max, "max", ArgReduceKernel, max)                                                             \
  OP(MaxBackward, "max_backward", ArgReduceBackwardKernel, max_backward)                           \
  OP(Matmul, "matmul", BinaryKernel, matmul)                                                       \
  OP(Im2col, "im2col", Conv2dLayoutKernel, im2col)                                                 \
  OP(Col2im, "col2im", Conv2dLayoutKernel, col2im)                                                 \
  OP(Conv2d, "conv2d", Conv2dKernel, conv2d)                                                       \
  OP(Conv2dBackwardInput, "conv2d_backward_input", Conv2dBackwardKernel, conv2d_backward_input)    \
  OP(Conv2dBackwardWeight, "conv2d_backward_weight", Conv2dBackwardKernel, conv2d_backward_weight) \
  OP(Conv2dBiasRelu, "conv2d_bias_relu", Conv2dBiasReluKernel, conv2d_bias_relu)                   \
  OP(MaxPool2d, "max_pool2d", Pool2dKernel, max_pool2d)                                            \
  OP(MaxPool2dBackward, "max_pool2d_backward", Pool2dBackwardKernel, max_pool2d_backward)          \
  OP(Softmax, "softmax", UnaryKernel, softmax)                                                     \
  OP(LogSoftmax, "log_softmax", UnaryKernel, log_softmax)                                          \
  OP(SoftmaxBackward, "softmax_backward", BinaryKernel, softmax_backward)                          \
  OP(LogSoftmaxBackward, "log_softmax_backward", BinaryKernel, log_softmax_backward)               \
  OP(NllLoss, "nll_loss", BinaryKernel, nll_loss)                                                  \
  OP(NllLossBackward, "nll_loss_backward", NllBackwardKernel, nll_loss_backward)                   \
  OP(CrossEntropy, "cross_entropy", CrossEntropyKernel, cross_entropy)                             \
  OP(CrossEntropyBackward, "cross_entropy_backward", CrossEntropyBackwardKernel,                   \
     cross_entropy_backward)                                                                       \
  OP(LayerNorm, "layer_norm", LayerNormKernel, layer_norm)                                         \
  OP(LayerNormBackward, "layer_norm_backward", LayerNormBackwardKernel, layer_norm_backward)       \
  OP(Copy, "copy_", InplaceBinaryKernel, copy)                                                     \
  OP(Fill, "fill_", InplaceScalarKernel, fill)                                                     \
  OP(AddInplace, "add_", InplaceBinaryScalarKernel, add_inplace)                                   \
  OP(MulScalarInplace, "mul_", InplaceScalarKernel, mul_scalar_inplace)                            \
  OP(Uniform, "uniform_", RandomFillKernel, uniform)                                               \
  OP(Normal, "normal_", RandomFillKernel, normal)                                                  \
  OP(BernoulliMask, "bernoulli_mask_", RandomFillKernel, bernoulli_mask)                           \
  OP(BiasGeluDropout, "bias_gelu_dropout", BiasGeluDropoutKernel, bias_gelu_dropout)               \
  OP(BiasGeluDropoutBackward, "bias_gelu_dropout_backward", BiasGeluDropoutBackwardKernel,         \
     bias_gelu_dropout_backward)                                                                   \
  OP(LinearActivation, "linear_activation", LinearActivationKernel, linear_activation)             \
  OP(LinearWeightBiasBackward, "linear_weight_bias_backward", LinearWeightBiasBackwardKernel,      \
     linear_weight_bias_backward)                                                                  \
  OP(AdamStep, "adam_step_", AdamStepKernel, adam_step)                                            \
  OP(SgdStep, "sgd_step_", SgdStepKernel, sgd_step)

// Declares one op's kernel in the enclosing namespace (a backend's) with the op's signature:
// TSCOPE_ENGINE_OPS(TSCOPE_DECLARE_OP_KERNEL) declares them all. Needs <type_traits>.
#define TSCOPE_DECLARE_OP_KERNEL(Kind, name, Signature, kernel) \
  std::remove_pointer_t<Signature> kernel;
