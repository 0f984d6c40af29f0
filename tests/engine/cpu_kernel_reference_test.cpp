// The CPU's optimised kernels against their reference paths, on the same inputs: each fast kernel
// must give the reference's values (up to float rounding of a different summation order).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cpu/conv2d_direct.h"
#include "cpu/cpu_isa.h"
#include "cpu/cpu_kernels.h"
#include "gradcheck.h"
#include "tscope/engine/autograd.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/factories.h"

namespace tscope::engine {
namespace {

using testing::random_leaf;

void expect_close(const Tensor& actual, const Tensor& expected, const char* what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  const std::vector<float> got = actual.contiguous().to_vector<float>();
  const std::vector<float> want = expected.contiguous().to_vector<float>();
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::abs(want[i]))) << what << " at " << i;
  }
}

struct ConvCase {
  Shape input;   // [N, C, H, W]
  Shape weight;  // [OC, C, KH, KW]
  std::int64_t stride;
  std::int64_t padding;
};

Conv2dGeometry geometry_of(const ConvCase& c) {
  Conv2dGeometry g{.batch = c.input[0],
                   .channels = c.input[1],
                   .height = c.input[2],
                   .width = c.input[3],
                   .kernel_height = c.weight[2],
                   .kernel_width = c.weight[3],
                   .stride = c.stride,
                   .padding = c.padding};
  g.out_height = (g.height + 2 * g.padding - g.kernel_height) / g.stride + 1;
  g.out_width = (g.width + 2 * g.padding - g.kernel_width) / g.stride + 1;
  return g;
}

class ImageGemmConvolution : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ImageGemmConvolution, MatchesTheCompositionOfOpsForwardAndBackward) {
  const NoGradGuard no_grad;
  const ConvCase c = GetParam();
  const Conv2dGeometry g = geometry_of(c);
  const Tensor input = random_leaf(c.input, 11);
  const Tensor weight = random_leaf(c.weight, 12);
  const Tensor grad = random_leaf({g.batch, c.weight[0], g.out_height, g.out_width}, 13);

  const auto [out, saved] = cpu::conv2d(input, weight, g);
  const auto [reference_out, reference_cols] = cpu::conv2d_by_image_gemms(input, weight, g);
  expect_close(out, reference_out, "forward");
  // Nothing saved: the weight gradient unfolds the input again.
  EXPECT_FALSE(saved.defined());
  expect_close(cpu::conv2d_backward_input(grad, weight, g),
               cpu::conv2d_backward_input_by_image_gemms(grad, weight, g), "input gradient");
  expect_close(cpu::conv2d_backward_weight(grad, input, g),
               cpu::conv2d_backward_weight_by_image_gemms(grad, reference_cols, g),
               "weight gradient");
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, ImageGemmConvolution,
    ::testing::Values(
        // The example's two layers at a small batch.
        ConvCase{{3, 1, 28, 28}, {16, 1, 5, 5}, 1, 2},
        ConvCase{{3, 16, 14, 14}, {32, 16, 5, 5}, 1, 0},
        // Stride 2 with padding, a non-square kernel and input.
        ConvCase{{2, 3, 7, 6}, {4, 3, 3, 2}, 2, 1}, ConvCase{{2, 2, 9, 8}, {3, 2, 3, 3}, 3, 2},
        // Padding wider than the kernel: whole unfolded rows read only padding.
        ConvCase{{2, 2, 3, 3}, {2, 2, 2, 2}, 1, 3},
        // The kernel covers the whole input: one output position per image.
        ConvCase{{4, 2, 5, 5}, {3, 2, 5, 5}, 1, 0}));

// The direct kernels alone, image by image, against the composition of ops: forward, input and
// weight gradients over geometries that exercise every register count (16 to 64 output channels,
// one not a multiple of 16) and rows that split into tiles of unequal width.
TEST(MaxCpuIsa, NamesAvx2OrAvx512InAnyCaseAndRefusesAnythingElse) {
  EXPECT_EQ(cpu::parse_max_cpu_isa("avx2"), cpu::CpuIsa::kAvx2);
  EXPECT_EQ(cpu::parse_max_cpu_isa("AVX2"), cpu::CpuIsa::kAvx2);
  EXPECT_EQ(cpu::parse_max_cpu_isa("avx512"), cpu::CpuIsa::kAvx512);
  for (const char* value : {"", "sse", "avx", "avx2 ", "avx512f"}) {
    try {
      cpu::parse_max_cpu_isa(value);
      ADD_FAILURE() << "accepted '" << value << "'";
    } catch (const EngineError& error) {
      EXPECT_EQ(std::string(error.what()),
                "TSCOPE_MAX_CPU_ISA: expected avx2 or avx512, got '" + std::string(value) + "'");
    }
  }
}

class DirectConvolutionKernel : public ::testing::TestWithParam<ConvCase> {};

TEST_P(DirectConvolutionKernel, MatchesTheCompositionOfOpsForwardAndBackward) {
  const NoGradGuard no_grad;
  const ConvCase c = GetParam();
  const Conv2dGeometry g = geometry_of(c);
  const std::int64_t out_channels = c.weight[0];
  if (!cpu::DirectConvolution::available()) {
    GTEST_SKIP() << "the direct convolution needs AVX-512F, which this CPU lacks or "
                 << cpu::kMaxCpuIsaVariable << " rules out";
  }
  const Tensor input = random_leaf(c.input, 41);
  const Tensor weight = random_leaf(c.weight, 42);
  const Tensor grad = random_leaf({g.batch, out_channels, g.out_height, g.out_width}, 43);
  const std::vector<float> filters = weight.contiguous().to_vector<float>();
  const std::vector<float> images = input.contiguous().to_vector<float>();
  const std::vector<float> grads = grad.contiguous().to_vector<float>();
  const std::int64_t image_floats = g.channels * g.height * g.width;
  const std::int64_t output_floats = out_channels * g.out_height * g.out_width;
  const auto [reference_out, reference_cols] = cpu::conv2d_by_image_gemms(input, weight, g);

  const auto forward = cpu::DirectConvolution::forward(g, filters.data(), out_channels);
  std::vector<float> scratch(static_cast<std::size_t>(forward.scratch_floats()));
  Tensor out = zeros({g.batch, out_channels, g.out_height, g.out_width});
  for (std::int64_t n = 0; n < g.batch; ++n) {
    forward.run(images.data() + n * image_floats, scratch.data(),
                out.data<float>() + n * output_floats);
  }
  expect_close(out, reference_out, "forward");

  const auto backward = cpu::DirectConvolution::input_gradient(g, filters.data(), out_channels);
  scratch.assign(static_cast<std::size_t>(backward.scratch_floats()), 0.0f);
  Tensor input_grad = zeros(c.input);
  for (std::int64_t n = 0; n < g.batch; ++n) {
    backward.run(grads.data() + n * output_floats, scratch.data(),
                 input_grad.data<float>() + n * image_floats);
  }
  expect_close(input_grad, cpu::conv2d_backward_input_by_image_gemms(grad, weight, g),
               "input gradient");

  const cpu::DirectWeightGradient weight_gradient(g, out_channels);
  scratch.assign(static_cast<std::size_t>(weight_gradient.scratch_floats()), 0.0f);
  // Two sets of sums, the images split between them as between two threads.
  std::vector<float> sums(static_cast<std::size_t>(2 * weight_gradient.sum_floats()), 0.0f);
  for (std::int64_t n = 0; n < g.batch; ++n) {
    weight_gradient.accumulate(images.data() + n * image_floats, grads.data() + n * output_floats,
                               scratch.data(),
                               sums.data() + (n % 2) * weight_gradient.sum_floats());
  }
  Tensor weight_grad = zeros(c.weight);
  weight_gradient.total(sums.data(), 2, weight_grad.data<float>());
  expect_close(weight_grad, cpu::conv2d_backward_weight_by_image_gemms(grad, reference_cols, g),
               "weight gradient");
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, DirectConvolutionKernel,
    ::testing::Values(
        // The example's second layer: two registers of output channels, a 10-wide row.
        ConvCase{{3, 16, 14, 14}, {32, 16, 5, 5}, 1, 0},
        // Padding, 28 columns in two tiles of 14.
        ConvCase{{2, 8, 28, 28}, {16, 8, 5, 5}, 1, 2},
        // 20 output channels (two registers, the second mostly empty), 3 x 3 with padding 1, a
        // 13-wide row in tiles of 7 and 6.
        ConvCase{{2, 8, 9, 13}, {20, 8, 3, 3}, 1, 1},
        // 64 output channels (four registers, tiles of at most 6) over 30 columns.
        ConvCase{{2, 8, 6, 30}, {64, 8, 3, 3}, 1, 1},
        // 48 output channels (three registers) and a kernel as large as the padded input.
        ConvCase{{2, 12, 3, 3}, {48, 12, 5, 5}, 1, 1}));

struct SumCase {
  Shape shape;
  Shape dims;
};

class DenseSum : public ::testing::TestWithParam<SumCase> {};

TEST_P(DenseSum, MatchesTheStridedLoop) {
  const SumCase c = GetParam();
  const Tensor x = random_leaf(c.shape, 21);
  expect_close(cpu::sum(x, c.dims), cpu::sum_strided(x, c.dims), "sum");
}

INSTANTIATE_TEST_SUITE_P(
    Dims, DenseSum,
    ::testing::Values(
        // A convolution's bias gradient: all but the channel dim.
        SumCase{{4, 3, 5, 6}, {0, 2, 3}},
        // A linear layer's bias gradient: the rows.
        SumCase{{37, 19}, {0}},
        // Trailing dims, with runs longer and shorter than the accumulator's lanes.
        SumCase{{3, 4, 21}, {1, 2}}, SumCase{{5, 3}, {1}},
        // Everything, nothing, and kept dims that are not consecutive (the strided loop itself).
        SumCase{{2, 3, 4}, {0, 1, 2}}, SumCase{{2, 3, 4}, {}}, SumCase{{2, 3, 4}, {1}},
        // An empty reduced dim sums to zero.
        SumCase{{2, 0, 3}, {1}}));

struct AddCase {
  Shape lhs;
  Shape rhs;
};

class BroadcastAdd : public ::testing::TestWithParam<AddCase> {};

TEST_P(BroadcastAdd, MatchesTheStridedLoop) {
  const AddCase c = GetParam();
  const Tensor a = random_leaf(c.lhs, 31);
  const Tensor b = random_leaf(c.rhs, 32);
  expect_close(cpu::add(a, b), cpu::add_strided(a, b), "add");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BroadcastAdd,
    ::testing::Values(
        // A convolution's bias, as [1, C, 1, 1] and as [C, 1, 1].
        AddCase{{3, 4, 5, 6}, {1, 4, 1, 1}}, AddCase{{3, 4, 5, 6}, {4, 1, 1}},
        // A linear layer's bias, a column, a scalar.
        AddCase{{7, 9}, {9}}, AddCase{{7, 9}, {7, 1}}, AddCase{{7, 9}, {1}},
        // b varying over two consecutive dims; b varying over dims that are not consecutive (the
        // strided loop itself); a broadcast too (the strided loop).
        AddCase{{2, 3, 4, 5}, {3, 4, 1}}, AddCase{{2, 3, 4}, {2, 1, 4}}, AddCase{{1, 3}, {4, 1}}));

struct PoolCase {
  Shape input;  // [N, C, H, W]
  std::int64_t kernel;
  std::int64_t stride;
};

class MaxPooling : public ::testing::TestWithParam<PoolCase> {};

// Max pooling by its definition: each window's first maximum in row-major order, as a plain
// branch on each comparison (the kernels select instead, unroll 2 x 2 windows or take a row's
// windows 16 at a time), and its gradient routed to each window's winner.
TEST_P(MaxPooling, TakesTheFirstMaximumOfEachWindowAsTheDefinitionDoes) {
  const PoolCase c = GetParam();
  const Shape& in = c.input;
  // Values from {0, 1, 2, 3}: most windows hold ties, which the first of them must win; a NaN in
  // a window's first position wins, elsewhere it loses.
  Generator generator(41);
  std::vector<float> values = uniform(in, 0.0, 4.0, generator).to_vector<float>();
  for (float& value : values)
    value = std::floor(value);
  values[0] = std::nanf("");
  values[5] = std::nanf("");
  const Tensor input = from_vector(values, in);
  const std::int64_t out_height = (in[2] - c.kernel) / c.stride + 1;
  const std::int64_t out_width = (in[3] - c.kernel) / c.stride + 1;
  const Pool2dGeometry g{.batch = in[0],
                         .channels = in[1],
                         .height = in[2],
                         .width = in[3],
                         .kernel_height = c.kernel,
                         .kernel_width = c.kernel,
                         .stride = c.stride,
                         .out_height = out_height,
                         .out_width = out_width};
  const auto [pooled, indices] = cpu::max_pool2d(input, g);
  const std::vector<float> got = pooled.to_vector<float>();
  const std::vector<std::int64_t> got_indices = indices.to_vector<std::int64_t>();
  std::size_t out = 0;
  for (std::int64_t plane = 0; plane < in[0] * in[1]; ++plane) {
    const float* x = values.data() + plane * in[2] * in[3];
    for (std::int64_t oh = 0; oh < out_height; ++oh) {
      for (std::int64_t ow = 0; ow < out_width; ++ow, ++out) {
        std::int64_t best = oh * c.stride * in[3] + ow * c.stride;
        for (std::int64_t ki = 0; ki < c.kernel; ++ki) {
          for (std::int64_t kj = 0; kj < c.kernel; ++kj) {
            const std::int64_t at = (oh * c.stride + ki) * in[3] + ow * c.stride + kj;
            if (x[at] > x[best]) best = at;
          }
        }
        ASSERT_EQ(got_indices[out], best) << "output " << out;
        if (std::isnan(x[best])) {
          EXPECT_TRUE(std::isnan(got[out])) << "output " << out;
        } else {
          EXPECT_EQ(got[out], x[best]) << "output " << out;
        }
      }
    }
  }
  // Backward by its definition: each output's gradient added at its window's winner, zero where
  // no window's winner lies.
  const Tensor grad = uniform(pooled.shape(), -1.0, 1.0, generator);
  const std::vector<float> incoming = grad.to_vector<float>();
  const std::int64_t outputs_per_plane = out_height * out_width;
  std::vector<float> expected(values.size(), 0.0f);
  for (std::size_t o = 0; o < incoming.size(); ++o) {
    const auto plane = static_cast<std::int64_t>(o) / outputs_per_plane;
    expected[static_cast<std::size_t>(plane * in[2] * in[3] + got_indices[o])] += incoming[o];
  }
  EXPECT_EQ(cpu::max_pool2d_backward(grad, indices, g).to_vector<float>(), expected);
}

INSTANTIATE_TEST_SUITE_P(
    Windows, MaxPooling,
    ::testing::Values(
        // The example CNN's 2 x 2 pooling at stride 2 (on AVX-512 CPUs a row at a time in
        // vectors of 16 outputs, else the unrolled path): its two layers' sizes, an odd size
        // (rows and columns no window covers), and rows of two whole vectors and a ragged end.
        PoolCase{{2, 3, 28, 28}, 2, 2}, PoolCase{{2, 3, 10, 10}, 2, 2},
        PoolCase{{1, 2, 7, 9}, 2, 2}, PoolCase{{1, 2, 4, 70}, 2, 2}, PoolCase{{1, 1, 6, 65}, 2, 2},
        // Overlapping 2 x 2 windows, and 3 x 3 windows (the general path).
        PoolCase{{2, 2, 6, 6}, 2, 1}, PoolCase{{2, 3, 9, 9}, 3, 2}));

}  // namespace
}  // namespace tscope::engine
