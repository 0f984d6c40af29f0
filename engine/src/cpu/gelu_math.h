#pragma once
// The tanh form of GELU (Hendrycks and Gimpel) and its derivative, shared by the GELU kernels and
// the fused bias + GELU + dropout kernels so both compute bit-identical values.

#include <cmath>

namespace tscope::engine::cpu {

// sqrt(2 / pi) and the cubic coefficient of the tanh approximation.
inline constexpr float kGeluScale = 0.7978845608028654f;
inline constexpr float kGeluCubic = 0.044715f;

inline float gelu_value(float x) {
  return 0.5f * x * (1.0f + std::tanh(kGeluScale * (x + kGeluCubic * x * x * x)));
}

inline float gelu_slope(float x) {
  const float t = std::tanh(kGeluScale * (x + kGeluCubic * x * x * x));
  const float inner_slope = kGeluScale * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * inner_slope;
}

}  // namespace tscope::engine::cpu
