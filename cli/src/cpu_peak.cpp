#include "cpu_peak.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace tscope::cli {
namespace {

constexpr int kRuns = 5;
// Large enough that sgemm runs at its full rate and the copy does not fit in any cache, small
// enough that the measurement takes well under a second.
constexpr int kMatrix = 1024;
constexpr std::size_t kCopyBytes = std::size_t{256} << 20;

template <typename Work>
double best_seconds(Work&& work) {
  double best = 1e30;
  for (int run = 0; run < kRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return best;
}

}  // namespace

CpuPeak measure_cpu_peak() {
  const std::size_t elements = std::size_t{kMatrix} * kMatrix;
  std::vector<float> a(elements, 1.0f);
  std::vector<float> b(elements, 0.5f);
  std::vector<float> c(elements, 0.0f);
  const double gemm_seconds = best_seconds([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kMatrix, kMatrix, kMatrix, 1.0f,
                a.data(), kMatrix, b.data(), kMatrix, 0.0f, c.data(), kMatrix);
  });
  std::vector<char> source(kCopyBytes, 1);
  std::vector<char> destination(kCopyBytes, 0);
  const double copy_seconds =
      best_seconds([&] { std::memcpy(destination.data(), source.data(), kCopyBytes); });
  const double gemm_flops = 2.0 * kMatrix * kMatrix * kMatrix;
  // A copy reads and writes every byte.
  return {gemm_flops / gemm_seconds, 2.0 * static_cast<double>(kCopyBytes) / copy_seconds};
}

}  // namespace tscope::cli
