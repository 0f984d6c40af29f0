#pragma once
// What the CUDA tests share: the tolerances of the issue (fp32 and TF32 against the CPU), the
// device they run on, the error measure they compare with, a fixture that skips where no CUDA
// device answers and draws fresh random inputs, and the shapes of a convolution case.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tscope/engine/cuda.h"
#include "tscope/engine/device.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/generator.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/tensor.h"

namespace tscope::engine::testing {

inline constexpr double kFp32Tolerance = 1e-4;
inline constexpr double kTf32Tolerance = 1e-2;
inline const Device kCuda = Device::cuda(0);

// Largest difference relative to the largest magnitude of the reference.
inline double relative_error(const Tensor& reference, const Tensor& actual) {
  const std::vector<float> expected = reference.to_vector<float>();
  const std::vector<float> got = actual.to(Device::cpu()).to_vector<float>();
  EXPECT_EQ(expected.size(), got.size());
  double largest = 1e-6;
  double difference = 0.0;
  for (std::size_t i = 0; i < expected.size() && i < got.size(); ++i) {
    largest = std::max(largest, static_cast<double>(std::fabs(expected[i])));
    difference = std::max(difference, static_cast<double>(std::fabs(expected[i] - got[i])));
  }
  return difference / largest;
}

// One convolution's input and weight shapes and its stride and padding.
struct ConvCase {
  Shape input;
  Shape weight;
  Conv2dOptions options;
};

class CudaComparisonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) {
      GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
    }
  }

  // A fresh random host tensor: a different seed each call, so inputs are never tuned to pass.
  Tensor random(const Shape& shape) { return randn(shape, generator_); }

  Generator generator_{std::random_device{}()};
};

}  // namespace tscope::engine::testing
