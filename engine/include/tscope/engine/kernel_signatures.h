#pragma once
// The function types kernels implement, one per calling convention, and the geometry structs
// that window ops pass. Every backend registers functions of exactly these types.

#include <cstdint>
#include <span>
#include <tuple>
#include <utility>

#include "tscope/engine/generator.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"
#include "tscope/engine/window_geometry.h"

namespace tscope::engine {

// Geometry of a 2-D convolution over input [batch, channels, height, width].
using Conv2dGeometry = WindowGeometry;
// Geometry of a 2-D max pooling over the same input: a square window, no padding.
using Pool2dGeometry = WindowGeometry;

// out = f(x)
using UnaryKernel = Tensor (*)(const Tensor& x);
// out = f(x, scalar)
using UnaryScalarKernel = Tensor (*)(const Tensor& x, double scalar);
// out = f(a, b), a and b broadcast against each other
using BinaryKernel = Tensor (*)(const Tensor& a, const Tensor& b);
// Sums over `dims` (sorted, distinct, wrapped), keeping them as size 1.
using ReduceKernel = Tensor (*)(const Tensor& x, std::span<const std::int64_t> dims);
// Max over `dim`, kept as size 1: values and int64 indices.
using ArgReduceKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, std::int64_t dim);
// Gradient of an arg-reduction: `grad` placed at `indices` along `dim` of a zero tensor of `shape`.
using ArgReduceBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& indices,
                                           std::int64_t dim, std::span<const std::int64_t> shape);
// im2col ([N, C, H, W] -> [N, C*KH*KW, OH*OW]) and col2im (its adjoint).
using Conv2dLayoutKernel = Tensor (*)(const Tensor& x, const Conv2dGeometry& geometry);
// A convolution without bias (input [N, C, H, W], weight [OC, C, KH, KW] -> [N, OC, OH, OW]): the
// output, and what its weight gradient reads in place of the input (the unfolded input where a
// backend keeps it; undefined where the input itself serves).
using Conv2dKernel = std::pair<Tensor, Tensor> (*)(const Tensor& input, const Tensor& weight,
                                                   const Conv2dGeometry& geometry);
// The convolution's gradients: with respect to the input from (grad, weight), to the weight from
// (grad, the forward's saved tensor or else its input).
using Conv2dBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& operand,
                                        const Conv2dGeometry& geometry);
// relu(conv2d(input, weight) + bias) with bias [OC] as one op: the output, and the weight
// gradient's operand as Conv2dKernel returns it.
using Conv2dBiasReluKernel = std::pair<Tensor, Tensor> (*)(const Tensor& input,
                                                           const Tensor& weight, const Tensor& bias,
                                                           const Conv2dGeometry& geometry);
using Pool2dKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, const Pool2dGeometry& geometry);
using Pool2dBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& indices,
                                        const Pool2dGeometry& geometry);
// Gradient of the mean negative log-likelihood with respect to log-probabilities [N, C].
using NllBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& targets,
                                     std::int64_t classes);
// Mean cross-entropy of logits [N, C] against int64 targets [N] in [0, C), in one pass: the loss
// and each row's log-sum-exp [N], from which the gradient recomputes the softmax.
using CrossEntropyKernel = std::pair<Tensor, Tensor> (*)(const Tensor& logits,
                                                         const Tensor& targets);
// grad * (softmax(logits) - onehot(targets)) / N, with grad the loss's scalar gradient.
using CrossEntropyBackwardKernel = Tensor (*)(const Tensor& grad, const Tensor& logits,
                                              const Tensor& targets, const Tensor& log_sum_exp);
// Layer normalisation of each row of contiguous x [rows, cols], then weight and bias [cols] where
// they are defined: the output [rows, cols] and each row's mean and rstd = 1 / sqrt(variance +
// eps) [rows], the variance biased (divided by cols).
using LayerNormKernel = std::tuple<Tensor, Tensor, Tensor> (*)(const Tensor& x,
                                                               const Tensor& weight,
                                                               const Tensor& bias, double eps);
// Which gradients of layer normalisation a backward pass computes; the others come back undefined.
struct LayerNormGradNeeds {
  bool input = true;
  bool weight = true;
  bool bias = true;
};
// Its gradients with respect to x [rows, cols], weight and bias [cols], from the forward's saved
// mean and rstd (weight undefined where the forward had none).
using LayerNormBackwardKernel = std::tuple<Tensor, Tensor, Tensor> (*)(
    const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& mean,
    const Tensor& rstd, const LayerNormGradNeeds& needs);
// dst = f(dst, src), src broadcast to dst's shape
using InplaceBinaryKernel = void (*)(Tensor& dst, const Tensor& src);
using InplaceBinaryScalarKernel = void (*)(Tensor& dst, const Tensor& src, double scalar);
using InplaceScalarKernel = void (*)(Tensor& dst, double scalar);
using RandomFillKernel = void (*)(Tensor& dst, double first, double second, Generator& generator);
// Fused gelu(x + bias) * mask over contiguous x [..., F] and bias [F], drawing the dropout mask
// (0 or 1/(1-p)) as it goes: returns the output and the mask.
using BiasGeluDropoutKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, const Tensor& bias,
                                                            double drop_probability,
                                                            Generator& generator);
// The activation a fused linear layer applies after its bias.
enum class FusedActivation : std::uint8_t { kRelu, kGelu };
// activation(x weight^T + bias) over x [M, K], weight [N, K], bias [N]: the output, and the
// pre-activation [M, N] for GELU's gradient (undefined for ReLU, whose gradient the output
// decides).
using LinearActivationKernel = std::pair<Tensor, Tensor> (*)(const Tensor& x, const Tensor& weight,
                                                             const Tensor& bias,
                                                             FusedActivation activation);
// A linear layer's weight [N, K] and bias [N] gradients from its input x [M, K] and the gradient
// of its pre-activation [M, N].
using LinearWeightBiasBackwardKernel = std::pair<Tensor, Tensor> (*)(const Tensor& grad,
                                                                     const Tensor& x);
// Its gradients with respect to x and to bias (x's summed over the leading dims), in one pass.
using BiasGeluDropoutBackwardKernel = std::pair<Tensor, Tensor> (*)(const Tensor& grad,
                                                                    const Tensor& x,
                                                                    const Tensor& bias,
                                                                    const Tensor& mask);

// One Adam update of each parameter of a list from its gradient, in place, in one pass: with
// g = gradient + l2_decay * parameter, m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2
// and parameter = parameter * decoupled_scale
//                 - step_size * m / (sqrt(v) * inverse_sqrt_correction2 + eps).
struct AdamStepConfig {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double step_size = 1e-3;                // learning rate / (1 - beta1^t)
  double inverse_sqrt_correction2 = 1.0;  // 1 / sqrt(1 - beta2^t)
  double l2_decay = 0.0;                  // Adam's weight decay, folded into the gradient
  double decoupled_scale = 1.0;           // AdamW's 1 - lr * weight decay
};
// The lists run in parallel: parameter i updates from gradient i and moments i. One call covers
// a whole model, which CUDA updates in one launch instead of one per parameter.
using AdamStepKernel = void (*)(std::span<Tensor> parameters, std::span<const Tensor> gradients,
                                std::span<Tensor> first_moments, std::span<Tensor> second_moments,
                                const AdamStepConfig& config);

// One SGD update of each parameter of a list, in place: g = gradient + weight_decay * parameter;
// with momentum, buffer = momentum * buffer + g (buffers start at zero, so the first step stores
// g) and g = buffer; then parameter = parameter - learning_rate * g.
struct SgdStepConfig {
  double learning_rate = 0.01;
  double momentum = 0.0;
  double weight_decay = 0.0;
};
// `momentum_buffers` runs parallel to the parameters, or is empty without momentum.
using SgdStepKernel = void (*)(std::span<Tensor> parameters, std::span<const Tensor> gradients,
                               std::span<Tensor> momentum_buffers, const SgdStepConfig& config);

}  // namespace tscope::engine
