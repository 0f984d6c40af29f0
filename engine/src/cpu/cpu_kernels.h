#pragma once
// The CPU implementations registered in the dispatcher; each matches a kernel signature.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <tuple>
#include <utility>

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine::cpu {

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);

Tensor add_scalar(const Tensor& x, double scalar);
Tensor mul_scalar(const Tensor& x, double scalar);
Tensor pow_scalar(const Tensor& x, double exponent);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor relu_backward(const Tensor& grad, const Tensor& x);
Tensor gelu_backward(const Tensor& grad, const Tensor& x);
Tensor sigmoid_backward(const Tensor& grad, const Tensor& y);
Tensor tanh_backward(const Tensor& grad, const Tensor& y);

Tensor sum(const Tensor& x, std::span<const std::int64_t> dims);
std::pair<Tensor, Tensor> max(const Tensor& x, std::int64_t dim);
Tensor max_backward(const Tensor& grad, const Tensor& indices, std::int64_t dim,
                    std::span<const std::int64_t> shape);

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor im2col(const Tensor& x, const Conv2dGeometry& geometry);
Tensor col2im(const Tensor& cols, const Conv2dGeometry& geometry);
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dGeometry& geometry);
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices,
                           const Pool2dGeometry& geometry);

Tensor softmax(const Tensor& x);
Tensor log_softmax(const Tensor& x);
Tensor softmax_backward(const Tensor& grad, const Tensor& y);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& y);
Tensor nll_loss(const Tensor& log_probs, const Tensor& targets);
Tensor nll_loss_backward(const Tensor& grad, const Tensor& targets, std::int64_t classes);
std::pair<Tensor, Tensor> cross_entropy(const Tensor& logits, const Tensor& targets);
Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                              const Tensor& log_sum_exp);
std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& x, const Tensor& weight,
                                              const Tensor& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& x,
                                                       const Tensor& weight, const Tensor& mean,
                                                       const Tensor& rstd,
                                                       const LayerNormGradNeeds& needs);

void copy(Tensor& dst, const Tensor& src);
void fill(Tensor& dst, double value);
void add_inplace(Tensor& dst, const Tensor& src, double alpha);
void mul_scalar_inplace(Tensor& dst, double factor);
void uniform(Tensor& dst, double low, double high, Generator& generator);
void normal(Tensor& dst, double mean, double stddev, Generator& generator);
void bernoulli_mask(Tensor& dst, double keep_probability, double scale, Generator& generator);

// The product through the matmul op, then the bias and activation in one pass over it.
std::pair<Tensor, Tensor> linear_activation(const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, FusedActivation activation);

std::pair<Tensor, Tensor> bias_gelu_dropout(const Tensor& x, const Tensor& bias,
                                            double drop_probability, Generator& generator);
std::pair<Tensor, Tensor> bias_gelu_dropout_backward(const Tensor& grad, const Tensor& x,
                                                     const Tensor& bias, const Tensor& mask);

void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config);
void sgd_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
              std::span<Tensor> momentum_buffers, const SgdStepConfig& config);
// Throws unless the gradients and every state list run parallel to the parameters and each
// parameter's gradient and states are contiguous float32 tensors of its shape (shared with the
// CUDA kernels).
void check_optimizer_operands(const char* op_name, std::span<const Tensor> parameters,
                              std::span<const Tensor> gradients,
                              std::initializer_list<std::span<const Tensor>> states);

// A contiguous tensor with x's values: x itself when already contiguous, else a copy.
Tensor dense(const Tensor& x);

}  // namespace tscope::engine::cpu
