#pragma once
// Checks an op's backward against central finite differences: the op's output is projected onto
// fixed random weights, and each input element is nudged both ways, the difference quotient
// being formed in double.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <vector>

#include "tscope/engine/autograd.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine::testing {

struct GradcheckOptions {
  // Float32 forward passes: a step of 1e-2 keeps rounding error well below truncation error.
  double step = 1e-2;
  double absolute_tolerance = 5e-3;
  double relative_tolerance = 1e-2;
};

using DifferentiableFn = std::function<Tensor(const std::vector<Tensor>&)>;

// A float32 leaf of `shape` with values uniform in [low, high), reproducible from `seed`.
inline Tensor random_leaf(const Shape& shape, std::uint64_t seed, double low = -1.0,
                          double high = 1.0) {
  Generator generator(seed);
  return uniform(shape, low, high, generator);
}

// A leaf of `shape` whose values are distinct and at least `spacing` apart (a shuffled range),
// so maxima stay where they are under finite-difference nudges.
inline Tensor distinct_leaf(const Shape& shape, std::uint64_t seed, double spacing = 0.1) {
  const std::int64_t count = shape_numel(shape);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] =
        static_cast<float>(spacing * static_cast<double>(i - count / 2));
  }
  Generator generator(seed);
  for (std::size_t i = values.size(); i > 1; --i) {
    std::swap(values[i - 1], values[generator.next_u64() % i]);
  }
  return from_vector(values, shape);
}

inline double projected(const Tensor& output, const std::vector<float>& weights) {
  const std::vector<float> values = output.to_vector<float>();
  double total = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    total += static_cast<double>(values[i]) * static_cast<double>(weights[i]);
  }
  return total;
}

inline ::testing::AssertionResult gradcheck(const DifferentiableFn& fn, std::vector<Tensor> inputs,
                                            GradcheckOptions options = {}) {
  for (Tensor& input : inputs) {
    input = input.contiguous().detach();
    input.set_requires_grad(true);
  }
  const Tensor output = fn(inputs);
  Generator weight_generator(12345);
  const Tensor weights = uniform(output.shape(), 0.5, 1.5, weight_generator);
  const std::vector<float> weight_values = weights.to_vector<float>();
  sum(mul(output, weights)).backward();

  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor analytic = inputs[i].grad();
    if (!analytic.defined()) {
      return ::testing::AssertionFailure() << "input " << i << " received no gradient";
    }
    const std::vector<float> analytic_values = analytic.to_vector<float>();
    float* values = inputs[i].data<float>();
    for (std::int64_t j = 0; j < inputs[i].numel(); ++j) {
      const float original = values[j];
      double plus = 0.0;
      double minus = 0.0;
      {
        const NoGradGuard no_grad;
        values[j] = static_cast<float>(original + options.step);
        plus = projected(fn(inputs), weight_values);
        values[j] = static_cast<float>(original - options.step);
        minus = projected(fn(inputs), weight_values);
        values[j] = original;
      }
      const double numeric = (plus - minus) / (2.0 * options.step);
      const double computed = analytic_values[static_cast<std::size_t>(j)];
      const double allowed =
          options.absolute_tolerance + options.relative_tolerance * std::abs(numeric);
      if (!(std::abs(computed - numeric) <= allowed)) {
        return ::testing::AssertionFailure()
               << "input " << i << " element " << j << ": backward gives " << computed
               << ", finite differences give " << numeric;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tscope::engine::testing
