#pragma once
// exp(x) for float in straight-line arithmetic that GCC vectorises inside a kernel's loop, where a
// call to libm's expf keeps the loop scalar: Cody and Waite's range reduction x = n ln 2 + r with
// |r| <= ln 2 / 2, exp(r) from its Taylor polynomial of degree 7 (the first term left out is
// r^8 / 8! < 6e-9 relative), and 2^n placed in the exponent bits. Within 2 ulp of expf on
// [-87, 80]; arguments past it saturate to exp(-87) and exp(80) instead of 0 and infinity.
//
// Why 80 rather than the float limit, 88: GCC computes a vectorised loop's saturated value beside
// the others and then selects, so a kernel pays for the saturated lane's arithmetic in every
// iteration. There, 1 / (1 + e^88) (a sigmoid's) is a subnormal float, and every multiplication
// by it costs a microcode assist: the GELU kernels ran 5x slower. 1 / (1 + e^80) is normal.

#include <bit>
#include <cstdint>

namespace tscope::engine::cpu {

inline float exp_approx(float x) {
  constexpr float kLog2e = 1.44269504f;
  // ln 2 in two parts: n * kLn2High is exact for |n| < 2^9, so r keeps its low bits.
  constexpr float kLn2High = 0.693359375f;
  constexpr float kLn2Low = -2.12194440e-4f;
  // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer in float arithmetic (SSE2 has
  // no rounding instruction).
  constexpr float kRoundingShift = 12582912.0f;
  // One comparison a statement: GCC turns each into a min or max instruction.
  x = x < -87.0f ? -87.0f : x;
  x = x > 80.0f ? 80.0f : x;
  const float n = (x * kLog2e + kRoundingShift) - kRoundingShift;
  const float r = (x - n * kLn2High) - n * kLn2Low;
  float p = 1.0f / 5040.0f + r * (1.0f / 40320.0f);
  p = 1.0f / 720.0f + r * p;
  p = 1.0f / 120.0f + r * p;
  p = 1.0f / 24.0f + r * p;
  p = 1.0f / 6.0f + r * p;
  p = 0.5f + r * p;
  p = 1.0f + r * p;
  p = 1.0f + r * p;
  const auto exponent = static_cast<std::int32_t>(n) + 127;  // in [1, 243] after the clamp
  return p * std::bit_cast<float>(static_cast<std::uint32_t>(exponent) << 23);
}

}  // namespace tscope::engine::cpu
