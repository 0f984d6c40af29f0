#include "tscope/engine/factories.h"

#include <cmath>
#include <cstring>

#include "current_op.h"
#include "dispatch.h"
#include "tscope/engine/allocator.h"
#include "tscope/engine/errors.h"

namespace tscope::engine {
namespace {

template <typename T>
Tensor tensor_from_values(const std::vector<T>& values, const Shape& shape, TensorOptions options) {
  if (static_cast<std::int64_t>(values.size()) != shape_numel(shape)) {
    throw EngineError("from_vector: " + std::to_string(values.size()) + " values for shape " +
                      shape_to_string(shape));
  }
  if (options.dtype != DTypeOf<T>::kValue) {
    throw EngineError("from_vector: " + std::string(dtype_name(DTypeOf<T>::kValue)) +
                      " values for a tensor of " + std::string(dtype_name(options.dtype)));
  }
  if (!options.device.is_cpu()) {
    throw EngineError("from_vector creates host tensors; got device " + options.device.to_string());
  }
  Tensor tensor = empty(shape, {.dtype = options.dtype, .device = options.device});
  if (!values.empty()) std::memcpy(tensor.raw_data(), values.data(), values.size() * sizeof(T));
  tensor.set_requires_grad(options.requires_grad);
  return tensor;
}

Tensor random_tensor(OpKind op, const Shape& shape, double first, double second,
                     Generator& generator, TensorOptions options) {
  Tensor tensor = empty(shape, {.dtype = options.dtype, .device = options.device});
  run_op<RandomFillKernel>(op, tensor, first, second, generator);
  tensor.set_requires_grad(options.requires_grad);
  return tensor;
}

}  // namespace

Tensor empty(const Shape& shape, TensorOptions options) {
  return empty(shape, options, allocator_for(options.device));
}

Tensor empty(const Shape& shape, TensorOptions options, Allocator& allocator) {
  for (const std::int64_t extent : shape) {
    if (extent < 0) throw EngineError("negative extent in shape " + shape_to_string(shape));
  }
  // Tensors created outside any op (factories called by user code) are attributed to "empty".
  const CurrentOpScope scope(current_op_name().empty() ? "empty" : current_op_name());
  auto impl = std::make_shared<TensorImpl>();
  const auto bytes = static_cast<std::size_t>(shape_numel(shape)) * element_size(options.dtype);
  impl->storage = std::make_shared<Storage>(bytes, allocator);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = options.dtype;
  impl->requires_grad = options.requires_grad;
  return Tensor(std::move(impl));
}

Tensor full(const Shape& shape, double value, TensorOptions options) {
  Tensor tensor = empty(shape, {.dtype = options.dtype, .device = options.device});
  run_op<InplaceScalarKernel>(OpKind::kFill, tensor, value);
  tensor.set_requires_grad(options.requires_grad);
  return tensor;
}

Tensor zeros(const Shape& shape, TensorOptions options) {
  return full(shape, 0.0, options);
}
Tensor ones(const Shape& shape, TensorOptions options) {
  return full(shape, 1.0, options);
}

Tensor zeros_like(const Tensor& like) {
  return zeros(like.shape(), {.dtype = like.dtype(), .device = like.device()});
}

Tensor from_vector(const std::vector<float>& values, const Shape& shape, TensorOptions options) {
  return tensor_from_values(values, shape, options);
}

Tensor from_vector(const std::vector<std::int64_t>& values, const Shape& shape,
                   TensorOptions options) {
  return tensor_from_values(values, shape, options);
}

Tensor arange(double start, double end, double step, TensorOptions options) {
  if (step == 0.0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    throw EngineError("arange: needs finite bounds and a non-zero step");
  }
  const auto count = static_cast<std::int64_t>(std::max(0.0, std::ceil((end - start) / step)));
  if (options.dtype == DType::kInt64) {
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      values[static_cast<std::size_t>(i)] =
          static_cast<std::int64_t>(start + step * static_cast<double>(i));
    }
    return from_vector(values, {count}, options);
  }
  std::vector<float> values(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] = static_cast<float>(start + step * static_cast<double>(i));
  }
  return from_vector(values, {count}, options);
}

Tensor uniform(const Shape& shape, double low, double high, Generator& generator,
               TensorOptions options) {
  return random_tensor(OpKind::kUniform, shape, low, high, generator, options);
}

Tensor randn(const Shape& shape, Generator& generator, TensorOptions options) {
  return random_tensor(OpKind::kNormal, shape, 0.0, 1.0, generator, options);
}

}  // namespace tscope::engine
