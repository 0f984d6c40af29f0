// The intra-op thread pool: parallel_for covers a loop exactly once across the threads, runs
// nested loops and exceptions as a serial loop would, and the kernels it splits give, at two
// threads, exactly what they give at one (the serial reference: a range's arithmetic does not
// depend on which thread runs it).

#include "cpu/intra_op_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gradcheck.h"
#include "tscope/engine/errors.h"
#include "tscope/engine/ops.h"
#include "tscope/engine/optim/adam.h"
#include "tscope/engine/threads.h"

namespace tscope::engine {
namespace {

using testing::random_leaf;

// Restores the thread count a test changed.
class ThreadCount : public ::testing::Test {
 protected:
  void TearDown() override { set_num_threads(saved_); }

 private:
  int saved_ = num_threads();
};

using IntraOpPool = ThreadCount;

TEST_F(IntraOpPool, ParallelForVisitsEveryIndexOnce) {
  set_num_threads(2);
  constexpr std::int64_t kCount = 1 << 18;
  std::vector<std::atomic<int>> visits(kCount);
  cpu::parallel_for(kCount, 1 << 10, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      visits[static_cast<std::size_t>(i)].fetch_add(1);
  });
  for (std::int64_t i = 0; i < kCount; ++i)
    ASSERT_EQ(visits[static_cast<std::size_t>(i)].load(), 1) << "index " << i;
}

TEST_F(IntraOpPool, AWorkerTakesTheRangesTheBusyCallerLeaves) {
  set_num_threads(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> ranges_on_workers{0};
  std::atomic<std::int64_t> iterations{0};
  cpu::parallel_for(8, 1, [&](std::int64_t begin, std::int64_t end) {
    iterations.fetch_add(end - begin);
    if (std::this_thread::get_id() != caller) {
      ranges_on_workers.fetch_add(1);
      return;
    }
    // The caller holds its first range until a worker has run one (or 10 s have passed).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ranges_on_workers.load() == 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
  });
  EXPECT_GE(ranges_on_workers.load(), 1);
  EXPECT_EQ(iterations.load(), 8);
}

TEST_F(IntraOpPool, ALoopShorterThanTwoGrainsRunsOnTheCaller) {
  set_num_threads(2);
  std::set<std::thread::id> threads;
  cpu::parallel_for(
      100, 64, [&](std::int64_t, std::int64_t) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_F(IntraOpPool, ALoopInsideARangeRunsSeriallyInThatRange) {
  set_num_threads(2);
  std::atomic<std::int64_t> inner_iterations{0};
  std::atomic<int> inner_ranges{0};
  cpu::parallel_for(4, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      cpu::parallel_for(1000, 10, [&](std::int64_t inner_begin, std::int64_t inner_end) {
        inner_ranges.fetch_add(1);
        inner_iterations.fetch_add(inner_end - inner_begin);
      });
    }
  });
  EXPECT_EQ(inner_iterations.load(), 4000);
  EXPECT_EQ(inner_ranges.load(), 4);
}

TEST_F(IntraOpPool, AnExceptionInARangeReachesTheCallerAndThePoolStaysUsable) {
  set_num_threads(2);
  EXPECT_THROW(cpu::parallel_for(1000, 10,
                                 [](std::int64_t begin, std::int64_t) {
                                   if (begin > 0) throw std::runtime_error("second range");
                                 }),
               std::runtime_error);
  std::atomic<std::int64_t> iterations{0};
  cpu::parallel_for(
      1000, 10, [&](std::int64_t begin, std::int64_t end) { iterations.fetch_add(end - begin); });
  EXPECT_EQ(iterations.load(), 1000);
}

TEST_F(IntraOpPool, ThreadCountIsSetAndAZeroCountIsRefused) {
  set_num_threads(3);
  EXPECT_EQ(num_threads(), 3);
  EXPECT_THROW(set_num_threads(0), EngineError);
  EXPECT_EQ(num_threads(), 3);
}

TEST_F(IntraOpPool, WorkersAreNamedForTraces) {
  set_num_threads(2);
  std::set<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    names.insert(name);
  }
  EXPECT_TRUE(names.contains("tscope cpu 1"));
}

// Runs `compute` at one thread and at two and compares the results: equal to the bit for the
// engine's own kernels, within `relative` where OpenBLAS also splits its products (and with them
// the order of its sums) across the threads.
template <typename Compute>
void expect_same_at_one_and_two_threads(Compute compute, const char* what, double relative = 0.0) {
  set_num_threads(1);
  const std::vector<std::vector<float>> serial = compute();
  set_num_threads(2);
  const std::vector<std::vector<float>> parallel = compute();
  ASSERT_EQ(serial.size(), parallel.size()) << what;
  for (std::size_t i = 0; i < serial.size(); ++i) {
    ASSERT_EQ(serial[i].size(), parallel[i].size()) << what << ", result " << i;
    for (std::size_t j = 0; j < serial[i].size(); ++j) {
      ASSERT_NEAR(parallel[i][j], serial[i][j], relative * (1.0 + std::abs(serial[i][j])))
          << what << ", result " << i << " at " << j;
    }
  }
}

using SplitKernels = ThreadCount;

TEST_F(SplitKernels, ConvolutionReluPoolingAndBiasMatchOneThread) {
  expect_same_at_one_and_two_threads(
      [] {
        Tensor input = random_leaf({8, 3, 28, 28}, 41);
        Tensor weight = random_leaf({16, 3, 5, 5}, 42).set_requires_grad(true);
        Tensor bias = random_leaf({16}, 43).set_requires_grad(true);
        input.set_requires_grad(true);
        const Tensor activated =
            relu(conv2d(input, weight, bias, Conv2dOptions{.stride = 1, .padding = 2}));
        const Tensor pooled = max_pool2d(activated, 2);
        sum(mul(pooled, pooled)).backward();
        return std::vector<std::vector<float>>{
            pooled.to_vector<float>(), input.grad().to_vector<float>(),
            weight.grad().to_vector<float>(), bias.grad().to_vector<float>()};
      },
      "conv2d, relu, max_pool2d and their gradients", 1e-4);
}

// Products large enough to be cut into blocks among the threads: the output's rows (the longer
// side) of a batch whose parts cross from one product to the next, its columns, transposed views
// on either side, and sides that are not a multiple of the block.
TEST_F(SplitKernels, MatmulBlocksMatchOneThread) {
  expect_same_at_one_and_two_threads(
      [] {
        const Tensor batch = random_leaf({3, 70, 300}, 71);
        const Tensor shared = random_leaf({300, 50}, 72);
        const Tensor wide = random_leaf({300, 90}, 73);
        const Tensor lhs_t = random_leaf({300, 40}, 74).transpose(0, 1);
        const Tensor rhs_t = random_leaf({90, 300}, 75).transpose(0, 1);
        return std::vector<std::vector<float>>{
            matmul(batch, shared).to_vector<float>(), matmul(lhs_t, wide).to_vector<float>(),
            matmul(lhs_t, rhs_t).to_vector<float>(),
            matmul(random_leaf({300, 120}, 76).transpose(0, 1), random_leaf({300, 20}, 77))
                .to_vector<float>()};
      },
      "matmul by blocks of rows and of columns", 1e-5);
}

TEST_F(SplitKernels, ElementwiseOpsMatchOneThread) {
  expect_same_at_one_and_two_threads(
      [] {
        const Tensor a = random_leaf({300, 1000}, 51);
        const Tensor b = random_leaf({300, 1000}, 52, 0.5, 2.0);
        return std::vector<std::vector<float>>{
            mul(a, b).to_vector<float>(), div(a, b).to_vector<float>(), exp(a).to_vector<float>(),
            add(a, random_leaf({1000}, 53)).to_vector<float>()};
      },
      "mul, div, exp and a broadcast add");
}

TEST_F(SplitKernels, AdamStepMatchesOneThread) {
  expect_same_at_one_and_two_threads(
      [] {
        Tensor weight = random_leaf({512, 300}, 61).set_requires_grad(true);
        Tensor bias = random_leaf({300}, 62).set_requires_grad(true);
        optim::Adam adam({weight, bias}, {.learning_rate = 1e-2});
        for (int step = 0; step < 3; ++step) {
          adam.zero_grad();
          sum(mul(add(weight, bias), random_leaf({512, 300}, 63 + step))).backward();
          adam.step();
        }
        return std::vector<std::vector<float>>{weight.to_vector<float>(), bias.to_vector<float>()};
      },
      "three Adam steps");
}

}  // namespace
}  // namespace tscope::engine
