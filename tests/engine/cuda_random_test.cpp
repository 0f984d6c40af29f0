// The random kernels on CUDA draw from the same Philox stream as the CPU kernels: from one seed,
// dropout masks and uniform fills are equal bit for bit on both devices, normal fills to a few
// ulps (the devices' log and cos round differently). Skipped, with the reason, where no CUDA
// device answers.

#include <gtest/gtest.h>

#include "cuda_comparison.h"
#include "dispatch.h"
#include "tscope/engine/cuda.h"
#include "tscope/engine/factories.h"
#include "tscope/engine/ops.h"

namespace tscope::engine {
namespace {

using testing::kCuda;
using testing::kFp32Tolerance;
using testing::relative_error;

class CudaRandom : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) {
      GTEST_SKIP() << "no CUDA device answers: " << cuda_unavailable_reason();
    }
  }
};

TEST_F(CudaRandom, UniformFillsAreEqualBitForBit) {
  Generator on_cpu(31);
  Generator on_gpu(31);
  // An odd size, so the last Philox block is only partly used.
  const Tensor expected = uniform({1001}, -1.0, 3.0, on_cpu);
  const Tensor actual = uniform({1001}, -1.0, 3.0, on_gpu, {.device = kCuda});
  EXPECT_EQ(actual.device(), kCuda);
  EXPECT_EQ(actual.to_vector<float>(), expected.to_vector<float>());
  // Both generators moved past the same draws.
  EXPECT_EQ(on_cpu.next_u64(), on_gpu.next_u64());
}

TEST_F(CudaRandom, NormalFillsAgreeToRounding) {
  Generator on_cpu(32);
  Generator on_gpu(32);
  const Tensor expected = randn({513, 7}, on_cpu);
  const Tensor actual = randn({513, 7}, on_gpu, {.device = kCuda});
  EXPECT_LT(relative_error(expected, actual), kFp32Tolerance);
}

TEST_F(CudaRandom, DropoutMasksAreEqualBitForBit) {
  Generator on_cpu(33);
  Generator on_gpu(33);
  const Tensor x = ones({37, 129});
  EXPECT_EQ(dropout(x.to(kCuda), 0.3, true, on_gpu).to_vector<float>(),
            dropout(x, 0.3, true, on_cpu).to_vector<float>());
}

TEST_F(CudaRandom, AStridedFillTakesTheDrawsInRowMajorOrder) {
  Generator on_cpu(34);
  Generator on_gpu(34);
  Tensor host = zeros({9, 5}).transpose(0, 1);
  Tensor device = zeros({9, 5}, {.device = kCuda}).transpose(0, 1);
  run_op<RandomFillKernel>(OpKind::kBernoulliMask, host, 0.5, 2.0, on_cpu);
  run_op<RandomFillKernel>(OpKind::kBernoulliMask, device, 0.5, 2.0, on_gpu);
  EXPECT_EQ(device.contiguous().to_vector<float>(), host.contiguous().to_vector<float>());
}

TEST_F(CudaRandom, FusedDropoutDrawsTheMaskOfTheUnfusedOps) {
  Generator inputs(36);
  const Tensor x = randn({64, 96}, inputs);
  const Tensor bias = randn({96}, inputs);
  Generator on_gpu(35);
  Generator on_cpu(35);
  const Tensor fused = bias_gelu_dropout(x.to(kCuda), bias.to(kCuda), 0.25, true, on_gpu);
  const Tensor unfused = dropout(gelu(add(x, bias)), 0.25, true, on_cpu);
  EXPECT_LT(relative_error(unfused, fused), kFp32Tolerance);
}

}  // namespace
}  // namespace tscope::engine
