#include "tscope/engine/shape.h"

#include <algorithm>

#include "tscope/engine/errors.h"

namespace tscope::engine {

std::int64_t shape_numel(std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (const std::int64_t extent : shape)
    count *= extent;
  return count;
}

Shape contiguous_strides(std::span<const std::int64_t> shape) {
  Shape strides(shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<std::int64_t>(shape[i], 1);
  }
  return strides;
}

Shape broadcast_shapes(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t extent_a = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t extent_b = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (extent_a != extent_b && extent_a != 1 && extent_b != 1) {
      throw EngineError("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                        " cannot be broadcast together");
    }
    result[rank - 1 - i] = extent_a == 1 ? extent_b : extent_a;
  }
  return result;
}

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op) {
  const std::int64_t wrapped = dim < 0 ? dim + ndim : dim;
  if (wrapped < 0 || wrapped >= ndim) {
    throw EngineError(std::string(op) + ": dimension " + std::to_string(dim) +
                      " out of range for a tensor of " + std::to_string(ndim) + " dims");
  }
  return wrapped;
}

std::string shape_to_string(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace tscope::engine
