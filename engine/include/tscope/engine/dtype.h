#pragma once
// Element types a tensor can hold: float32 for values, int64 for labels and indices.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tscope::engine {

enum class DType : std::uint8_t { kFloat32, kInt64 };

std::size_t element_size(DType dtype);
std::string_view dtype_name(DType dtype);

// Maps a C++ element type to its DType, so typed accessors can check what they are given.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType kValue = DType::kFloat32;
};
template <>
struct DTypeOf<std::int64_t> {
  static constexpr DType kValue = DType::kInt64;
};

}  // namespace tscope::engine
