#pragma once
// Functions that create tensors: uninitialised, constant, from host values, ranges, random.

#include <cstdint>
#include <vector>

#include "tscope/engine/allocator.h"
#include "tscope/engine/device.h"
#include "tscope/engine/dtype.h"
#include "tscope/engine/generator.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine {

struct TensorOptions {
  DType dtype = DType::kFloat32;
  Device device = Device::cpu();
  bool requires_grad = false;
};

// Contents undefined; kernels fill it.
Tensor empty(const Shape& shape, TensorOptions options = {});
// Contents undefined, with storage from `allocator` (pinned host memory, for instance).
Tensor empty(const Shape& shape, TensorOptions options, Allocator& allocator);
Tensor zeros(const Shape& shape, TensorOptions options = {});
Tensor ones(const Shape& shape, TensorOptions options = {});
Tensor full(const Shape& shape, double value, TensorOptions options = {});
Tensor zeros_like(const Tensor& like);

// Copies `values` (row-major) into a new tensor of `shape`; throws when the counts differ.
Tensor from_vector(const std::vector<float>& values, const Shape& shape,
                   TensorOptions options = {});
Tensor from_vector(const std::vector<std::int64_t>& values, const Shape& shape,
                   TensorOptions options = {.dtype = DType::kInt64});

// [start, end) with `step`, as float32 unless options say int64.
Tensor arange(double start, double end, double step = 1.0, TensorOptions options = {});

Tensor uniform(const Shape& shape, double low, double high, Generator& generator,
               TensorOptions options = {});
Tensor randn(const Shape& shape, Generator& generator, TensorOptions options = {});  // N(0, 1)

}  // namespace tscope::engine
