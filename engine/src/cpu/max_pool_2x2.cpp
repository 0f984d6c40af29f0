#include "cpu/max_pool_2x2.h"

#include <immintrin.h>

#include <algorithm>

#include "cpu/cpu_isa.h"

namespace tscope::engine::cpu {
namespace {

constexpr std::int64_t kLanes = 16;

// The first `count` of 16 lanes.
__mmask16 first_lanes(std::int64_t count) {
  return static_cast<__mmask16>(count >= kLanes ? 0xffff : (1u << count) - 1);
}

// The window's best so far and its offset in the window, replaced where `candidate` is greater
// (false for a NaN on either side, so the first of equal values and a leading NaN stay).
struct Best {
  __m512 value;
  __m512i offset;
};
[[gnu::target("avx512f")]] Best consider(Best best, __m512 candidate, __m512i candidate_offset) {
  const __mmask16 greater = _mm512_cmp_ps_mask(candidate, best.value, _CMP_GT_OQ);
  return {_mm512_mask_blend_ps(greater, best.value, candidate),
          _mm512_mask_blend_epi32(greater, best.offset, candidate_offset)};
}

}  // namespace

bool max_pool_2x2_available() {
  return avx512_allowed();
}

[[gnu::target("avx512f")]] void max_pool_2x2_row(const float* top, std::int64_t width,
                                                 std::int64_t top_index, std::int64_t outputs,
                                                 float* values, std::int64_t* indices) {
  const float* bottom = top + width;
  // Lane i of a pair of loaded vectors (32 columns): column 2i, and 2i + 1.
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const __m512i widen_low = _mm512_setr_epi32(0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0);
  const __m512i widen_high =
      _mm512_setr_epi32(8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0);
  // A window's positions in row-major order, as offsets from its top-left one.
  const __m512i right = _mm512_set1_epi32(1);
  const __m512i below = _mm512_set1_epi32(static_cast<int>(width));
  const __m512i below_right = _mm512_set1_epi32(static_cast<int>(width + 1));
  for (std::int64_t first = 0; first < outputs; first += kLanes) {
    const std::int64_t count = std::min(kLanes, outputs - first);
    const __mmask16 low = first_lanes(2 * count);
    const __mmask16 high = first_lanes(std::max<std::int64_t>(0, 2 * count - kLanes));
    const std::int64_t column = 2 * first;
    const __m512 top_low = _mm512_maskz_loadu_ps(low, top + column);
    const __m512 top_high = _mm512_maskz_loadu_ps(high, top + column + kLanes);
    const __m512 bottom_low = _mm512_maskz_loadu_ps(low, bottom + column);
    const __m512 bottom_high = _mm512_maskz_loadu_ps(high, bottom + column + kLanes);
    Best best{_mm512_permutex2var_ps(top_low, even, top_high), _mm512_setzero_si512()};
    best = consider(best, _mm512_permutex2var_ps(top_low, odd, top_high), right);
    best = consider(best, _mm512_permutex2var_ps(bottom_low, even, bottom_high), below);
    best = consider(best, _mm512_permutex2var_ps(bottom_low, odd, bottom_high), below_right);
    const __mmask16 out = first_lanes(count);
    _mm512_mask_storeu_ps(values + first, out, best.value);
    // Index: the row's first position, the window's column (2i) and its offset in the window,
    // widened to 64 bits (the sum is not negative) by moving lanes 0..7, then 8..15, into the low
    // halves of 64-bit lanes, zeroing the high halves.
    const __m512i within = _mm512_add_epi32(even, best.offset);
    const __m512i start = _mm512_set1_epi64(top_index + column);
    _mm512_mask_storeu_epi64(
        indices + first, static_cast<__mmask8>(out),
        _mm512_add_epi64(start, _mm512_maskz_permutexvar_epi32(0x5555, widen_low, within)));
    _mm512_mask_storeu_epi64(
        indices + first + 8, static_cast<__mmask8>(out >> 8),
        _mm512_add_epi64(start, _mm512_maskz_permutexvar_epi32(0x5555, widen_high, within)));
  }
}

}  // namespace tscope::engine::cpu
