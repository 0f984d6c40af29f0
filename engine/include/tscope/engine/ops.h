#pragma once
// The differentiable operations on tensors. Each runs its device's kernel through the dispatcher
// and, when an input requires grad, records a node for backward.

#include <cstdint>
#include <optional>

#include "tscope/engine/generator.h"
#include "tscope/engine/kernel_signatures.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

// Elementwise, with NumPy broadcasting between tensors.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor pow(const Tensor& x, double exponent);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);  // tanh approximation
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator*(double a, const Tensor& b);
Tensor operator-(const Tensor& x);

// Reductions. With no dims they reduce everything to a scalar.
Tensor sum(const Tensor& x);
Tensor sum(const Tensor& x, const Shape& dims, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, const Shape& dims, bool keepdim = false);
Tensor max(const Tensor& x);
struct MaxResult {
  Tensor values;
  Tensor indices;  // int64, position of each maximum along the reduced dim
};
MaxResult max(const Tensor& x, std::int64_t dim, bool keepdim = false);

// Sums `x` down to `shape` (the inverse of broadcasting `shape` up to x's shape).
Tensor sum_to(const Tensor& x, const Shape& shape);

// Matrix products: 1-D and 2-D as in NumPy; more dims are batches, broadcast against each other.
Tensor matmul(const Tensor& a, const Tensor& b);
// x W^T + b, with W of shape [out, in].
Tensor linear(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias);

// activation(x W^T + b) for x [..., in], W [out, in], b [out] as one op: cuBLASLt epilogues on
// CUDA; on the CPU the values (and gradients) of linear followed by relu or gelu.
Tensor linear_activation(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         FusedActivation activation);

struct Conv2dOptions {
  std::int64_t stride = 1;
  std::int64_t padding = 0;
};
// input [N, C, H, W], weight [OC, C, KH, KW], bias [OC].
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              Conv2dOptions options = {});
// relu(conv2d(input, weight, bias)) as one op, the bias and ReLU applied as the convolution's
// output is written (cuDNN's fused convolution-bias-activation on CUDA); the values and gradients
// of the unfused chain.
Tensor conv2d_bias_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        Conv2dOptions options = {});
// input [N, C, H, W]; stride defaults to the kernel size.
Tensor max_pool2d(const Tensor& input, std::int64_t kernel_size,
                  std::optional<std::int64_t> stride = std::nullopt);

Tensor softmax(const Tensor& x, std::int64_t dim = -1);
Tensor log_softmax(const Tensor& x, std::int64_t dim = -1);
// logits [N, C], targets int64 [N] in [0, C); mean over the batch. One op forward and one
// backward (log_softmax and nll_loss fused).
Tensor cross_entropy(const Tensor& logits, const Tensor& targets);
// Zeroes each element with probability p and scales the rest by 1/(1-p); identity unless training.
Tensor dropout(const Tensor& x, double p, bool training, Generator& generator);
// dropout(gelu(x + bias)) in one pass, for bias [F] over the last dim of x; from one generator
// state it gives exactly what the three separate ops give.
Tensor bias_gelu_dropout(const Tensor& x, const Tensor& bias, double p, bool training,
                         Generator& generator);
// Normalises over the last normalized_shape.size() dims (biased variance), then applies weight
// and bias, each of the normalized shape. One op forward and one backward.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps = 1e-5);

}  // namespace tscope::engine
