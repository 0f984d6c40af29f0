#pragma once
// The CUDA implementations registered in the dispatcher; each matches a kernel signature and the
// CPU kernel of the same name (cpu/cpu_kernels.h), which is its reference in the tests.

#include <cstdint>
#include <span>
#include <tuple>
#include <utility>

#include "tscope/engine/kernel_signatures.h"

namespace tscope::engine::cuda {

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

// Through cuBLAS (cuda/matmul.cpp); TF32 when cuda_allow_tf32() is on.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor im2col(const Tensor& x, const Conv2dGeometry& geometry);
Tensor col2im(const Tensor& cols, const Conv2dGeometry& geometry);
// Through cuDNN (cuda/cudnn_convolution.cpp), in builds that found it.
std::pair<Tensor, Tensor> conv2d(const Tensor& input, const Tensor& weight,
                                 const Conv2dGeometry& geometry);
Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight,
                             const Conv2dGeometry& geometry);
Tensor conv2d_backward_weight(const Tensor& grad, const Tensor& input,
                              const Conv2dGeometry& geometry);
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dGeometry& geometry);
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices,
                           const Pool2dGeometry& geometry);

Tensor softmax(const Tensor& x);
Tensor log_softmax(const Tensor& x);
Tensor softmax_backward(const Tensor& grad, const Tensor& y);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& y);
// A target outside [0, classes) makes the loss NaN (a device cannot throw); the CPU kernel throws.
Tensor nll_loss(const Tensor& log_probs, const Tensor& targets);
Tensor nll_loss_backward(const Tensor& grad, const Tensor& targets, std::int64_t classes);
// One block or warp per row, as the CPU kernels; a target outside [0, classes) makes the loss and
// its row's gradient NaN, where the CPU kernels throw.
std::pair<Tensor, Tensor> cross_entropy(const Tensor& logits, const Tensor& targets);
Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                              const Tensor& log_sum_exp);
// One block or warp per row (cuda/fused_rows.cu); the weight and bias gradients are column sums
// in a fixed order, so every run gives the same bits.
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
// Drawn on the host from `generator` and copied: the same values the CPU kernels give for the
// same generator state, so a run is reproducible across devices.
void uniform(Tensor& dst, double low, double high, Generator& generator);
void normal(Tensor& dst, double mean, double stddev, Generator& generator);
void bernoulli_mask(Tensor& dst, double keep_probability, double scale, Generator& generator);

// The fused bias + GELU + dropout and its gradients (x's, and bias's summed over the leading
// dims), as the CPU kernels; the mask is drawn on the
// host from `generator` in the CPU kernel's order, so a seed gives the same mask on both devices.
std::pair<Tensor, Tensor> bias_gelu_dropout(const Tensor& x, const Tensor& bias,
                                            double drop_probability, Generator& generator);
std::pair<Tensor, Tensor> bias_gelu_dropout_backward(const Tensor& grad, const Tensor& x,
                                                     const Tensor& bias, const Tensor& mask);

// Through cuBLASLt epilogues (cuda/cublaslt_linear.cpp): bias and activation fused into the GEMM,
// and the bias gradient into the weight gradient's GEMM.
std::pair<Tensor, Tensor> linear_activation(const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, FusedActivation activation);
std::pair<Tensor, Tensor> linear_weight_bias_backward(const Tensor& grad, const Tensor& x);

// One Adam or SGD update of every parameter in one launch (per 48 parameters), as
// cpu::adam_step and cpu::sgd_step.
void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config);
void sgd_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
              std::span<Tensor> momentum_buffers, const SgdStepConfig& config);

// A contiguous tensor with x's values: x itself when already contiguous, else a device copy.
Tensor dense(const Tensor& x);

}  // namespace tscope::engine::cuda
