// The CUDA kernels as the dispatcher calls them: shape checks, output allocation and the choice
// between dense and strided launches, around the device code of elementwise.cu, reductions.cu and
// windows.cu.

#include "cuda/cuda_kernels.h"

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <numeric>

#include "cpu/cpu_kernels.h"
#include "cross_device.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/launchers.h"
#include "dispatch.h"
#include "kernel_operands.h"
#include "philox.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine::cuda {
namespace {

StridedLayout layout_for(const Shape& shape, std::initializer_list<const Shape*> strides) {
  if (shape.size() > static_cast<std::size_t>(kMaxDims)) {
    throw EngineError("cuda kernels take tensors of up to " + std::to_string(kMaxDims) +
                      " dims, got shape " + shape_to_string(shape));
  }
  StridedLayout layout;
  layout.rank = static_cast<int>(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d)
    layout.shape[d] = shape[d];
  int operand = 0;
  for (const Shape* operand_strides : strides) {
    for (std::size_t d = 0; d < shape.size(); ++d)
      layout.strides[operand][d] = (*operand_strides)[d];
    ++operand;
  }
  return layout;
}

float* floats(const Tensor& tensor) {
  return static_cast<float*>(tensor.raw_data());
}

std::int64_t* int64s(const Tensor& tensor) {
  return static_cast<std::int64_t*>(tensor.raw_data());
}

// An operand a kernel takes as optional: null where the tensor is undefined.
float* floats_or_null(const Tensor& tensor) {
  return tensor.defined() ? floats(tensor) : nullptr;
}

Tensor map_unary(const Tensor& x, UnaryOp op, double scalar, const char* name) {
  require_dtype(x, DType::kFloat32, name);
  const cudaStream_t stream = compute_stream(x.device());
  Tensor out = empty(x.shape(), {.device = x.device()});
  const auto s = static_cast<float>(scalar);
  if (x.is_contiguous()) {
    launch_unary_dense(op, s, floats(out), floats(x), out.numel(), stream);
  } else {
    launch_unary_strided(op, s, floats(out), floats(x),
                         layout_for(x.shape(), {&out.strides(), &x.strides()}), out.numel(),
                         stream);
  }
  TSCOPE_CUDA_CHECK_LAUNCH(name);
  return out;
}

Tensor map_binary(const Tensor& a, const Tensor& b, BinaryOp op, const char* name) {
  require_dtype(a, DType::kFloat32, name);
  require_dtype(b, DType::kFloat32, name);
  const cudaStream_t stream = compute_stream(a.device());
  const bool same_shape = a.shape() == b.shape();
  const Shape shape = same_shape ? a.shape() : broadcast_shapes(a.shape(), b.shape());
  Tensor out = empty(shape, {.device = a.device()});
  if (same_shape && a.is_contiguous() && b.is_contiguous()) {
    launch_binary_dense(op, floats(out), floats(a), floats(b), out.numel(), stream);
  } else {
    const Shape strides_a = broadcast_strides(a, shape);
    const Shape strides_b = broadcast_strides(b, shape);
    launch_binary_strided(op, floats(out), floats(a), floats(b),
                          layout_for(shape, {&out.strides(), &strides_a, &strides_b}), out.numel(),
                          stream);
  }
  TSCOPE_CUDA_CHECK_LAUNCH(name);
  return out;
}

// `x` with `dims` moved last (in order), as a view: rows of the result are what a reduction over
// `dims` combines.
Tensor with_dims_last(const Tensor& x, std::span<const std::int64_t> dims) {
  std::vector<bool> reduced(static_cast<std::size_t>(x.dim()), false);
  for (const std::int64_t dim : dims)
    reduced[static_cast<std::size_t>(dim)] = true;
  Shape shape;
  Shape strides;
  for (bool last_group : {false, true}) {
    for (std::size_t d = 0; d < reduced.size(); ++d) {
      if (reduced[d] != last_group) continue;
      shape.push_back(x.shape()[d]);
      strides.push_back(x.strides()[d]);
    }
  }
  return make_view(x, std::move(shape), std::move(strides), x.offset());
}

Shape kept_shape(const Tensor& x, std::span<const std::int64_t> dims) {
  Shape shape = x.shape();
  for (const std::int64_t dim : dims)
    shape[static_cast<std::size_t>(dim)] = 1;
  return shape;
}

// Rows of the last dim of two tensors of one shape, as the softmax kernels take them.
std::pair<std::int64_t, std::int64_t> rows_and_length(const Tensor& x) {
  const std::int64_t length = x.dim() == 0 ? 1 : x.shape().back();
  return {length == 0 ? 0 : x.numel() / length, length};
}

Tensor softmax_forward(const Tensor& x, bool log, const char* name) {
  require_dtype(x, DType::kFloat32, name);
  const cudaStream_t stream = compute_stream(x.device());
  const Tensor input = dense(x);
  Tensor out = empty(x.shape(), {.device = x.device()});
  const auto [rows, length] = rows_and_length(x);
  launch_softmax(floats(out), floats(input), rows, length, log, stream);
  TSCOPE_CUDA_CHECK_LAUNCH(name);
  return out;
}

Tensor softmax_gradient(const Tensor& grad, const Tensor& y, bool log, const char* name) {
  require_dtype(grad, DType::kFloat32, name);
  require_dtype(y, DType::kFloat32, name);
  const cudaStream_t stream = compute_stream(grad.device());
  const Tensor incoming = dense(grad);
  const Tensor output = dense(y);
  Tensor out = empty(grad.shape(), {.device = grad.device()});
  const auto [rows, length] = rows_and_length(grad);
  launch_softmax_backward(floats(out), floats(incoming), floats(output), rows, length, log, stream);
  TSCOPE_CUDA_CHECK_LAUNCH(name);
  return out;
}

// Runs `launch` (a dense fill of numel elements) into dst, through a dense tensor where dst is a
// strided view, so element i is the i-th in row-major order either way.
template <typename Launch>
void fill_dense(Tensor& dst, const char* op_name, Launch launch) {
  require_dtype(dst, DType::kFloat32, op_name);
  const cudaStream_t stream = compute_stream(dst.device());
  if (dst.is_contiguous()) {
    launch(floats(dst), stream);
    TSCOPE_CUDA_CHECK_LAUNCH(op_name);
    return;
  }
  Tensor staged = empty(dst.shape(), {.device = dst.device()});
  launch(floats(staged), stream);
  TSCOPE_CUDA_CHECK_LAUNCH(op_name);
  copy(dst, staged);
}

// Calls `launch` with the parameters in chunks of kParametersPerLaunch (one chunk for the models
// here), each parameter with its gradient and its state tensors (none where a list is empty).
template <typename Launch>
void for_each_parameter_chunk(std::span<Tensor> parameters, std::span<const Tensor> gradients,
                              std::span<Tensor> first_states, std::span<Tensor> second_states,
                              Launch launch) {
  for (std::size_t start = 0; start < parameters.size(); start += kParametersPerLaunch) {
    ParameterChunk chunk{};
    const std::size_t end = std::min(parameters.size(), start + kParametersPerLaunch);
    for (std::size_t i = start; i < end; ++i) {
      chunk.parameter[chunk.size] = floats(parameters[i]);
      chunk.gradient[chunk.size] = floats(gradients[i]);
      chunk.first_state[chunk.size] = first_states.empty() ? nullptr : floats(first_states[i]);
      chunk.second_state[chunk.size] = second_states.empty() ? nullptr : floats(second_states[i]);
      chunk.count[chunk.size] = parameters[i].numel();
      ++chunk.size;
    }
    launch(chunk);
  }
}

}  // namespace

Tensor neg(const Tensor& x) {
  return map_unary(x, UnaryOp::kNeg, 0.0, "neg");
}
Tensor exp(const Tensor& x) {
  return map_unary(x, UnaryOp::kExp, 0.0, "exp");
}
Tensor log(const Tensor& x) {
  return map_unary(x, UnaryOp::kLog, 0.0, "log");
}
Tensor sqrt(const Tensor& x) {
  return map_unary(x, UnaryOp::kSqrt, 0.0, "sqrt");
}
Tensor relu(const Tensor& x) {
  return map_unary(x, UnaryOp::kRelu, 0.0, "relu");
}
Tensor gelu(const Tensor& x) {
  return map_unary(x, UnaryOp::kGelu, 0.0, "gelu");
}
Tensor sigmoid(const Tensor& x) {
  return map_unary(x, UnaryOp::kSigmoid, 0.0, "sigmoid");
}
Tensor tanh(const Tensor& x) {
  return map_unary(x, UnaryOp::kTanh, 0.0, "tanh");
}
Tensor add_scalar(const Tensor& x, double scalar) {
  return map_unary(x, UnaryOp::kAddScalar, scalar, "add_scalar");
}
Tensor mul_scalar(const Tensor& x, double scalar) {
  return map_unary(x, UnaryOp::kMulScalar, scalar, "mul_scalar");
}
Tensor pow_scalar(const Tensor& x, double exponent) {
  return map_unary(x, UnaryOp::kPowScalar, exponent, "pow_scalar");
}

Tensor add(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, BinaryOp::kAdd, "add");
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, BinaryOp::kSub, "sub");
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, BinaryOp::kMul, "mul");
}
Tensor div(const Tensor& a, const Tensor& b) {
  return map_binary(a, b, BinaryOp::kDiv, "div");
}
Tensor relu_backward(const Tensor& grad, const Tensor& x) {
  return map_binary(grad, x, BinaryOp::kReluBackward, "relu_backward");
}
Tensor gelu_backward(const Tensor& grad, const Tensor& x) {
  return map_binary(grad, x, BinaryOp::kGeluBackward, "gelu_backward");
}
Tensor sigmoid_backward(const Tensor& grad, const Tensor& y) {
  return map_binary(grad, y, BinaryOp::kSigmoidBackward, "sigmoid_backward");
}
Tensor tanh_backward(const Tensor& grad, const Tensor& y) {
  return map_binary(grad, y, BinaryOp::kTanhBackward, "tanh_backward");
}

Tensor sum(const Tensor& x, std::span<const std::int64_t> dims) {
  require_dtype(x, DType::kFloat32, "sum");
  const cudaStream_t stream = compute_stream(x.device());
  Tensor out = empty(kept_shape(x, dims), {.device = x.device()});
  const std::int64_t rows = out.numel();
  if (rows == 0) return out;
  const Tensor grouped = dense(with_dims_last(x, dims));
  launch_row_sum(floats(out), floats(grouped), rows, x.numel() / rows, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("sum");
  return out;
}

std::pair<Tensor, Tensor> max(const Tensor& x, std::int64_t dim) {
  require_dtype(x, DType::kFloat32, "max");
  const std::int64_t extent = x.shape()[static_cast<std::size_t>(dim)];
  if (extent == 0) {
    throw EngineError("max: reduced dimension " + std::to_string(dim) + " of shape " +
                      shape_to_string(x.shape()) + " is empty");
  }
  const cudaStream_t stream = compute_stream(x.device());
  const std::array<std::int64_t, 1> dims{dim};
  Tensor values = empty(kept_shape(x, dims), {.device = x.device()});
  Tensor indices = empty(kept_shape(x, dims), {.dtype = DType::kInt64, .device = x.device()});
  const Tensor grouped = dense(with_dims_last(x, dims));
  launch_row_max(floats(values), int64s(indices), floats(grouped), values.numel(), extent, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("max");
  return {values, indices};
}

Tensor max_backward(const Tensor& grad, const Tensor& indices, std::int64_t dim,
                    std::span<const std::int64_t> shape) {
  require_dtype(grad, DType::kFloat32, "max_backward");
  require_dtype(indices, DType::kInt64, "max_backward");
  const cudaStream_t stream = compute_stream(grad.device());
  Tensor out = zeros(Shape(shape.begin(), shape.end()), {.device = grad.device()});
  launch_scatter_max_grad(
      floats(out), floats(grad), int64s(indices), out.strides()[static_cast<std::size_t>(dim)],
      layout_for(grad.shape(), {&out.strides(), &grad.strides(), &indices.strides()}), grad.numel(),
      stream);
  TSCOPE_CUDA_CHECK_LAUNCH("max_backward");
  return out;
}

Tensor im2col(const Tensor& x, const Conv2dGeometry& g) {
  require_dtype(x, DType::kFloat32, "im2col");
  const cudaStream_t stream = compute_stream(x.device());
  const Tensor input = dense(x);
  Tensor cols =
      empty({g.batch, g.channels * g.kernel_height * g.kernel_width, g.out_height * g.out_width},
            {.device = x.device()});
  launch_im2col(floats(cols), floats(input), g, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("im2col");
  return cols;
}

Tensor col2im(const Tensor& cols, const Conv2dGeometry& g) {
  require_dtype(cols, DType::kFloat32, "col2im");
  const cudaStream_t stream = compute_stream(cols.device());
  const Tensor input = dense(cols);
  Tensor image = empty({g.batch, g.channels, g.height, g.width}, {.device = cols.device()});
  launch_col2im(floats(image), floats(input), g, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("col2im");
  return image;
}

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dGeometry& g) {
  require_dtype(x, DType::kFloat32, "max_pool2d");
  const cudaStream_t stream = compute_stream(x.device());
  const Tensor input = dense(x);
  const Shape shape{g.batch, g.channels, g.out_height, g.out_width};
  Tensor values = empty(shape, {.device = x.device()});
  Tensor indices = empty(shape, {.dtype = DType::kInt64, .device = x.device()});
  launch_max_pool(floats(values), int64s(indices), floats(input), g, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("max_pool2d");
  return {values, indices};
}

Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, const Pool2dGeometry& g) {
  require_dtype(grad, DType::kFloat32, "max_pool2d_backward");
  require_dtype(indices, DType::kInt64, "max_pool2d_backward");
  const cudaStream_t stream = compute_stream(grad.device());
  const Tensor incoming = dense(grad);
  const Tensor positions = dense(indices);
  Tensor out = zeros({g.batch, g.channels, g.height, g.width}, {.device = grad.device()});
  launch_max_pool_backward(floats(out), floats(incoming), int64s(positions), g, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("max_pool2d_backward");
  return out;
}

Tensor softmax(const Tensor& x) {
  return softmax_forward(x, false, "softmax");
}
Tensor log_softmax(const Tensor& x) {
  return softmax_forward(x, true, "log_softmax");
}
Tensor softmax_backward(const Tensor& grad, const Tensor& y) {
  return softmax_gradient(grad, y, false, "softmax_backward");
}
Tensor log_softmax_backward(const Tensor& grad, const Tensor& y) {
  return softmax_gradient(grad, y, true, "log_softmax_backward");
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& targets) {
  require_dtype(log_probs, DType::kFloat32, "nll_loss");
  require_dtype(targets, DType::kInt64, "nll_loss");
  const cudaStream_t stream = compute_stream(log_probs.device());
  const Tensor scores = dense(log_probs);
  const Tensor labels = dense(targets);
  Tensor out = empty({}, {.device = log_probs.device()});
  launch_nll_loss(floats(out), floats(scores), int64s(labels), scores.shape()[0], scores.shape()[1],
                  stream);
  TSCOPE_CUDA_CHECK_LAUNCH("nll_loss");
  return out;
}

Tensor nll_loss_backward(const Tensor& grad, const Tensor& targets, std::int64_t classes) {
  require_dtype(grad, DType::kFloat32, "nll_loss_backward");
  require_dtype(targets, DType::kInt64, "nll_loss_backward");
  const cudaStream_t stream = compute_stream(grad.device());
  const Tensor labels = dense(targets);
  const std::int64_t batch = labels.numel();
  Tensor out = zeros({batch, classes}, {.device = grad.device()});
  launch_nll_loss_backward(floats(out), floats(grad), int64s(labels), batch, classes, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("nll_loss_backward");
  return out;
}

std::pair<Tensor, Tensor> cross_entropy(const Tensor& logits, const Tensor& targets) {
  require_dtype(logits, DType::kFloat32, "cross_entropy");
  require_dtype(targets, DType::kInt64, "cross_entropy");
  const cudaStream_t stream = compute_stream(logits.device());
  const Tensor scores = dense(logits);
  const Tensor labels = dense(targets);
  const std::int64_t rows = scores.shape()[0];
  Tensor row_losses = empty({rows}, {.device = logits.device()});
  Tensor log_sum_exp = empty({rows}, {.device = logits.device()});
  launch_cross_entropy(floats(row_losses), floats(log_sum_exp), floats(scores), int64s(labels),
                       rows, scores.shape()[1], stream);
  TSCOPE_CUDA_CHECK_LAUNCH("cross_entropy");
  Tensor loss = empty({}, {.device = logits.device()});
  launch_mean_of_rows(floats(loss), floats(row_losses), rows, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("cross_entropy");
  return {std::move(loss), std::move(log_sum_exp)};
}

Tensor cross_entropy_backward(const Tensor& grad, const Tensor& logits, const Tensor& targets,
                              const Tensor& log_sum_exp) {
  check_cross_entropy_backward_operands(grad, logits, targets, log_sum_exp);
  const cudaStream_t stream = compute_stream(logits.device());
  const Tensor scores = dense(logits);
  const Tensor labels = dense(targets);
  const Tensor normalisers = dense(log_sum_exp);
  Tensor out = empty(scores.shape(), {.device = logits.device()});
  launch_cross_entropy_backward(floats(out), floats(grad), floats(scores), int64s(labels),
                                floats(normalisers), scores.shape()[0], scores.shape()[1], stream);
  TSCOPE_CUDA_CHECK_LAUNCH("cross_entropy_backward");
  return out;
}

std::tuple<Tensor, Tensor, Tensor> layer_norm(const Tensor& x, const Tensor& weight,
                                              const Tensor& bias, double eps) {
  const auto [rows, cols] = layer_norm_extents(x, weight, bias, "layer_norm");
  const cudaStream_t stream = compute_stream(x.device());
  Tensor mean = empty({rows}, {.device = x.device()});
  Tensor rstd = empty({rows}, {.device = x.device()});
  Tensor out = empty(x.shape(), {.device = x.device()});
  launch_layer_norm(floats(out), floats(mean), floats(rstd), floats(x), floats_or_null(weight),
                    floats_or_null(bias), rows, cols, eps, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("layer_norm");
  return {std::move(out), std::move(mean), std::move(rstd)};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& x,
                                                       const Tensor& weight, const Tensor& mean,
                                                       const Tensor& rstd,
                                                       const LayerNormGradNeeds& needs) {
  const auto [rows, cols] = layer_norm_backward_extents(grad, x, weight, mean, rstd);
  const cudaStream_t stream = compute_stream(x.device());
  Tensor grad_input;
  if (needs.input) {
    grad_input = empty(x.shape(), {.device = x.device()});
    launch_layer_norm_input_grad(floats(grad_input), floats(grad), floats(x),
                                 floats_or_null(weight), floats(mean), floats(rstd), rows, cols,
                                 stream);
    TSCOPE_CUDA_CHECK_LAUNCH("layer_norm_backward");
  }
  Tensor grad_weight;
  Tensor grad_bias;
  if (needs.weight || needs.bias) {
    const std::int64_t chunks = layer_norm_row_chunks(rows);
    const Tensor weight_partials =
        needs.weight ? empty({chunks, cols}, {.device = x.device()}) : Tensor();
    const Tensor bias_partials =
        needs.bias ? empty({chunks, cols}, {.device = x.device()}) : Tensor();
    launch_layer_norm_column_partials(floats_or_null(weight_partials),
                                      floats_or_null(bias_partials), floats(grad), floats(x),
                                      floats(mean), floats(rstd), rows, cols, stream);
    TSCOPE_CUDA_CHECK_LAUNCH("layer_norm_backward");
    // cols by copy: clang before 16 cannot capture a structured binding.
    auto column_sums = [&, cols = cols](const Tensor& partials) {
      Tensor sums = empty({cols}, {.device = x.device()});
      launch_sum_column_partials(floats(sums), floats(partials), chunks, cols, stream);
      TSCOPE_CUDA_CHECK_LAUNCH("layer_norm_backward");
      return sums;
    };
    if (needs.weight) grad_weight = column_sums(weight_partials);
    if (needs.bias) grad_bias = column_sums(bias_partials);
  }
  return {std::move(grad_input), std::move(grad_weight), std::move(grad_bias)};
}

void copy(Tensor& dst, const Tensor& src) {
  check_copy_operands(dst, src);
  const cudaStream_t stream = compute_stream(dst.device());
  const auto element_bytes = static_cast<int>(element_size(dst.dtype()));
  if (dst.shape() == src.shape() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.numel() > 0) {
      TSCOPE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(),
                                        static_cast<std::size_t>(dst.numel()) * element_bytes,
                                        cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  const Shape src_strides = broadcast_strides(src, dst.shape());
  launch_copy(dst.raw_data(), src.raw_data(), element_bytes,
              layout_for(dst.shape(), {&dst.strides(), &src_strides}), dst.numel(), stream);
  TSCOPE_CUDA_CHECK_LAUNCH("copy_");
}

void fill(Tensor& dst, double value) {
  const cudaStream_t stream = compute_stream(dst.device());
  const bool wide = dst.dtype() == DType::kInt64;
  const std::uint64_t bits = wide ? std::bit_cast<std::uint64_t>(static_cast<std::int64_t>(value))
                                  : std::bit_cast<std::uint32_t>(static_cast<float>(value));
  launch_fill(dst.raw_data(), bits, wide ? 8 : 4, layout_for(dst.shape(), {&dst.strides()}),
              dst.numel(), stream);
  TSCOPE_CUDA_CHECK_LAUNCH("fill_");
}

void add_inplace(Tensor& dst, const Tensor& src, double alpha) {
  check_add_inplace_operands(dst, src);
  const cudaStream_t stream = compute_stream(dst.device());
  const Shape src_strides = broadcast_strides(src, dst.shape());
  launch_scale_add(floats(dst), 1.0f, floats(src), static_cast<float>(alpha),
                   layout_for(dst.shape(), {&dst.strides(), &src_strides}), dst.numel(), stream);
  TSCOPE_CUDA_CHECK_LAUNCH("add_");
}

void mul_scalar_inplace(Tensor& dst, double factor) {
  require_dtype(dst, DType::kFloat32, "mul_");
  const cudaStream_t stream = compute_stream(dst.device());
  launch_scale_add(floats(dst), static_cast<float>(factor), nullptr, 0.0f,
                   layout_for(dst.shape(), {&dst.strides(), &dst.strides()}), dst.numel(), stream);
  TSCOPE_CUDA_CHECK_LAUNCH("mul_");
}

void uniform(Tensor& dst, double low, double high, Generator& generator) {
  const PhiloxStream draws = generator.reserve(static_cast<std::uint64_t>(dst.numel()));
  fill_dense(dst, "uniform_", [&](float* out, cudaStream_t stream) {
    launch_uniform(out, dst.numel(), static_cast<float>(low), static_cast<float>(high), draws,
                   stream);
  });
}

void normal(Tensor& dst, double mean, double stddev, Generator& generator) {
  const PhiloxStream draws = generator.reserve(2 * static_cast<std::uint64_t>(dst.numel()));
  fill_dense(dst, "normal_", [&](float* out, cudaStream_t stream) {
    launch_normal(out, dst.numel(), static_cast<float>(mean), static_cast<float>(stddev), draws,
                  stream);
  });
}

void bernoulli_mask(Tensor& dst, double keep_probability, double scale, Generator& generator) {
  const PhiloxStream draws = generator.reserve(static_cast<std::uint64_t>(dst.numel()));
  fill_dense(dst, "bernoulli_mask_", [&](float* out, cudaStream_t stream) {
    launch_bernoulli_mask(out, dst.numel(), static_cast<float>(keep_probability),
                          static_cast<float>(scale), draws, stream);
  });
}

std::pair<Tensor, Tensor> bias_gelu_dropout(const Tensor& x, const Tensor& bias,
                                            double drop_probability, Generator& generator) {
  const std::int64_t features = checked_bias_features(x, bias, "bias_gelu_dropout");
  const cudaStream_t stream = compute_stream(x.device());
  // Without dropout the generator is left as it was, on both devices; every draw then keeps.
  const PhiloxStream draws = drop_probability == 0.0
                                 ? PhiloxStream{}
                                 : generator.reserve(static_cast<std::uint64_t>(x.numel()));
  Tensor mask = empty(x.shape(), {.device = x.device()});
  Tensor out = empty(x.shape(), {.device = x.device()});
  launch_bias_gelu_dropout(floats(out), floats(mask), floats(x), floats(bias), features, x.numel(),
                           static_cast<float>(1.0 - drop_probability),
                           static_cast<float>(1.0 / (1.0 - drop_probability)), draws, stream);
  TSCOPE_CUDA_CHECK_LAUNCH("bias_gelu_dropout");
  return {std::move(out), std::move(mask)};
}

std::pair<Tensor, Tensor> bias_gelu_dropout_backward(const Tensor& grad, const Tensor& x,
                                                     const Tensor& bias, const Tensor& mask) {
  const std::int64_t features = checked_bias_gelu_dropout_backward_features(grad, x, bias, mask);
  const cudaStream_t stream = compute_stream(x.device());
  Tensor grad_input = empty(x.shape(), {.device = x.device()});
  launch_bias_gelu_mask_backward(floats(grad_input), floats(grad), floats(x), floats(bias),
                                 floats(mask), features, x.numel(), stream);
  TSCOPE_CUDA_CHECK_LAUNCH("bias_gelu_dropout_backward");
  Shape leading(static_cast<std::size_t>(x.dim() - 1));
  std::iota(leading.begin(), leading.end(), std::int64_t{0});
  Tensor grad_bias = sum(grad_input, leading).view(bias.shape());
  return {std::move(grad_input), std::move(grad_bias)};
}

void adam_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
               std::span<Tensor> first_moments, std::span<Tensor> second_moments,
               const AdamStepConfig& config) {
  check_optimizer_operands("adam_step_", parameters, gradients, {first_moments, second_moments});
  if (parameters.empty()) return;
  const cudaStream_t stream = compute_stream(parameters.front().device());
  const AdamScalars scalars{static_cast<float>(config.beta1),
                            static_cast<float>(config.beta2),
                            static_cast<float>(config.eps),
                            static_cast<float>(config.step_size),
                            static_cast<float>(config.inverse_sqrt_correction2),
                            static_cast<float>(config.l2_decay),
                            static_cast<float>(config.decoupled_scale)};
  for_each_parameter_chunk(parameters, gradients, first_moments, second_moments,
                           [&](const ParameterChunk& chunk) {
                             launch_adam_step(chunk, scalars, stream);
                             TSCOPE_CUDA_CHECK_LAUNCH("adam_step_");
                           });
}

void sgd_step(std::span<Tensor> parameters, std::span<const Tensor> gradients,
              std::span<Tensor> momentum_buffers, const SgdStepConfig& config) {
  const bool momentum = config.momentum != 0.0;
  check_sgd_operands(parameters, gradients, momentum_buffers, momentum);
  if (parameters.empty()) return;
  const cudaStream_t stream = compute_stream(parameters.front().device());
  const SgdScalars scalars{static_cast<float>(-config.learning_rate),
                           static_cast<float>(config.momentum),
                           static_cast<float>(config.weight_decay)};
  for_each_parameter_chunk(parameters, gradients, momentum_buffers, {},
                           [&](const ParameterChunk& chunk) {
                             launch_sgd_step(chunk, scalars, stream);
                             TSCOPE_CUDA_CHECK_LAUNCH("sgd_step_");
                           });
}

Tensor dense(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor copy_of_x = empty(x.shape(), {.dtype = x.dtype(), .device = x.device()});
  copy(copy_of_x, x);
  return copy_of_x;
}

}  // namespace tscope::engine::cuda
