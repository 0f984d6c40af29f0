#pragma once
// The general path of CPU kernels: visiting every element of a shape through several operands,
// each with its own strides (zero along broadcast dims), innermost dimension in the tight loop.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tscope/engine/dtype.h"
#include "tscope/engine/shape.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine::cpu {

// Calls body(offsets) once per element of `shape`, where offsets[k] is the element offset of
// operand k (its strides[k], shape.size() entries each; broadcast_strides in kernel_operands.h
// gives a broadcast operand's).
template <std::size_t N, typename Body>
void for_each_strided(std::span<const std::int64_t> shape,
                      const std::array<const std::int64_t*, N>& strides, Body&& body) {
  for (const std::int64_t extent : shape) {
    if (extent == 0) return;
  }
  std::array<std::int64_t, N> offsets{};
  const std::size_t rank = shape.size();
  if (rank == 0) {
    body(offsets);
    return;
  }
  const std::int64_t inner_extent = shape[rank - 1];
  std::array<std::int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k)
    inner_strides[k] = strides[k][rank - 1];
  std::vector<std::int64_t> counter(rank - 1, 0);
  for (;;) {
    std::array<std::int64_t, N> cursor = offsets;
    for (std::int64_t i = 0; i < inner_extent; ++i) {
      body(cursor);
      for (std::size_t k = 0; k < N; ++k)
        cursor[k] += inner_strides[k];
    }
    std::size_t d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      ++counter[d];
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][d];
      if (counter[d] < shape[d]) break;
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][d] * shape[d];
      counter[d] = 0;
    }
  }
}

}  // namespace tscope::engine::cpu
