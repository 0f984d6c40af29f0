#pragma once
// The engine's intra-op thread pool: parallel_for splits a loop over [0, count) into one range
// per thread, the calling thread taking the first, and returns when all are done. Kernels call it
// only between BLAS calls, never around one, so the pool's workers and OpenBLAS' never run at
// once and together use at most num_threads() cores. parallel_gemms is the loop that runs BLAS
// inside (matmul's blocks, the convolutions' images): it makes OpenBLAS single-threaded while the
// pool's threads call it.

#include <cstdint>

namespace tscope::engine::cpu {

// Elements a range of a memory-bound loop gets at least: a few microseconds of work, against the
// few microseconds a sleeping worker takes to wake, so a loop smaller than two of these (a
// 64 x 256 activation) stays on the calling thread.
inline constexpr std::int64_t kElementwiseGrain = std::int64_t{1} << 16;

// A borrowed callable taking a range [begin, end); cheaper than std::function on the hot path.
class RangeTask {
 public:
  template <typename Body>
  explicit RangeTask(const Body& body)
      : body_(&body), call_([](const void* self, std::int64_t begin, std::int64_t end) {
          (*static_cast<const Body*>(self))(begin, end);
        }) {}
  void operator()(std::int64_t begin, std::int64_t end) const { call_(body_, begin, end); }

 private:
  const void* body_;
  void (*call_)(const void*, std::int64_t, std::int64_t);
};

// Runs task over [0, count) in ranges of at least `grain` iterations: serially when the loop is
// shorter than two grains, the pool has one thread, or the caller is itself inside a parallel
// loop or another thread's loop holds the pool. Rethrows the first exception a range threw.
void run_parallel(std::int64_t count, std::int64_t grain, const RangeTask& task);

template <typename Body>
void parallel_for(std::int64_t count, std::int64_t grain, const Body& body) {
  if (count < 2 * grain) {
    if (count > 0) body(std::int64_t{0}, count);
    return;
  }
  run_parallel(count, grain, RangeTask(body));
}

// Runs task over [0, count) like parallel_for with a grain of 1, but with OpenBLAS single-threaded
// while it runs, so that each of the pool's threads may call BLAS: for kernels that split their
// GEMMs among the pool's threads themselves (a matmul's blocks of rows or columns, a convolution's
// per-image GEMMs, too small for OpenBLAS to split well), where a late thread's share is claimed
// by the others instead of holding up the product. OpenBLAS gets its count back before this
// returns or throws.
void run_parallel_gemms(std::int64_t count, const RangeTask& task);

template <typename Body>
void parallel_gemms(std::int64_t count, const Body& body) {
  run_parallel_gemms(count, RangeTask(body));
}

// Applies the thread count (kNumThreadsVariable or OpenBLAS' own) the first time it is called;
// kernels that call BLAS call it first, so TSCOPE_NUM_THREADS also governs a program's first GEMM.
void configure_threads_once();

}  // namespace tscope::engine::cpu
