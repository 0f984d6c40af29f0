#pragma once
// Shapes and strides as plain integer vectors, and the rules that combine them (NumPy
// broadcasting, row-major strides, dimension wrapping).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tscope::engine {

using Shape = std::vector<std::int64_t>;

std::int64_t shape_numel(std::span<const std::int64_t> shape);
Shape contiguous_strides(std::span<const std::int64_t> shape);

// NumPy broadcasting: dimensions align from the right; each pair must be equal or one of them 1.
Shape broadcast_shapes(std::span<const std::int64_t> a, std::span<const std::int64_t> b);

// Turns a possibly negative dimension into [0, ndim); throws naming the op when out of range.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op);

// "[2, 3, 4]", the way errors print shapes.
std::string shape_to_string(std::span<const std::int64_t> shape);

}  // namespace tscope::engine
