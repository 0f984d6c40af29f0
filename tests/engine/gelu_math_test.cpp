// The vectorisable maths of the GELU kernels: exp_approx against libm's exp over its range,
// and GELU and its slope against the tanh form computed in double precision.

#include "cpu/gelu_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace tscope::engine::cpu {
namespace {

std::int64_t ulps_apart(float a, float b) {
  return std::llabs(static_cast<std::int64_t>(std::bit_cast<std::int32_t>(a)) -
                    static_cast<std::int64_t>(std::bit_cast<std::int32_t>(b)));
}

TEST(ExpApprox, IsWithinTwoUlpsOfLibmOverItsRange) {
  std::int64_t worst = 0;
  float worst_at = 0;
  for (float x = -87.0f; x < 80.0f; x += 0.000731f) {
    const std::int64_t apart = ulps_apart(exp_approx(x), std::exp(x));
    if (apart > worst) {
      worst = apart;
      worst_at = x;
    }
  }
  EXPECT_LE(worst, 2) << "at x = " << worst_at;
  EXPECT_EQ(exp_approx(0.0f), 1.0f);
}

TEST(ExpApprox, SaturatesPastItsRange) {
  EXPECT_EQ(exp_approx(-1000.0f), exp_approx(-87.0f));
  EXPECT_EQ(exp_approx(1000.0f), exp_approx(80.0f));
  EXPECT_TRUE(std::isfinite(exp_approx(1000.0f)));
  EXPECT_GT(exp_approx(-1000.0f), 0.0f);
}

// GELU's tanh form in double: x sigmoid(2u), and its derivative.
double reference_gelu(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

double reference_slope(double x) {
  const double t = std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) +
         0.5 * x * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x);
}

TEST(GeluMath, MatchesTheTanhFormInDoublePrecision) {
  double worst_relative = 0;
  double worst_slope = 0;
  for (float x = -12.0f; x < 12.0f; x += 0.0001f) {
    const double expected = reference_gelu(x);
    // Far left GELU is below 1e-30: the clamped exp gives a value as negligible, not a close one.
    if (std::fabs(expected) > 1e-30) {
      worst_relative =
          std::max(worst_relative, std::fabs(gelu_value(x) - expected) / std::fabs(expected));
    }
    worst_slope = std::max(worst_slope, std::fabs(gelu_slope(x) - reference_slope(x)));
  }
  EXPECT_LT(worst_relative, 5e-5);
  EXPECT_LT(worst_slope, 5e-6);
  EXPECT_EQ(gelu_value(0.0f), 0.0f);
  EXPECT_EQ(gelu_slope(0.0f), 0.5f);
}

}  // namespace
}  // namespace tscope::engine::cpu
