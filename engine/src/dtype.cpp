#include "tscope/engine/dtype.h"

namespace tscope::engine {

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return sizeof(float);
    case DType::kInt64:
      return sizeof(std::int64_t);
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt64:
      return "int64";
  }
  return "unknown";
}

}  // namespace tscope::engine
