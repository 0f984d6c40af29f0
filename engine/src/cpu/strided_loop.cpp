#include "cpu/strided_loop.h"

#include <string>

#include "tscope/engine/errors.h"

namespace tscope::engine::cpu {

Shape broadcast_strides(const Tensor& tensor, std::span<const std::int64_t> shape) {
  Shape strides(shape.size(), 0);
  const std::size_t rank = static_cast<std::size_t>(tensor.dim());
  const std::size_t lead = shape.size() - rank;
  for (std::size_t i = 0; i < rank; ++i) {
    strides[lead + i] = tensor.shape()[i] == 1 ? 0 : tensor.strides()[i];
  }
  return strides;
}

void require_dtype(const Tensor& tensor, DType dtype, const char* op) {
  if (tensor.dtype() != dtype) {
    throw EngineError(std::string(op) + ": expected a " + std::string(dtype_name(dtype)) +
                      " tensor, got " + std::string(dtype_name(tensor.dtype())));
  }
}

}  // namespace tscope::engine::cpu
