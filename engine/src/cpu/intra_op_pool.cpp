// The intra-op pool behind parallel_for and the engine's thread count. Workers wait on a
// generation counter: a spin that outlasts the gaps between a step's loops, then a futex wait, so
// that idle workers leave the cores to OpenBLAS and to other processes between steps. A loop's
// ranges are claimed one by one, by the caller too, and the caller waits only for ranges a worker
// has claimed: a worker that wakes late finds none left.

#include "cpu/intra_op_pool.h"

#include <cblas.h>
#include <pthread.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tscope/engine/errors.h"
#include "tscope/engine/threads.h"
#include "tscope/profiler/trace_metadata.h"
#include "tscope/trace/host_metadata.h"

namespace tscope::engine::cpu {
namespace {

// A worker, or the caller while it runs its own range: a parallel loop inside runs serially.
thread_local bool inside_parallel_loop = false;

// How long a waiting thread spins before it sleeps on a futex. Waking a sleeping thread costs
// tens of microseconds on a VM, more than many of a step's loops take, and a training step runs
// one loop after another a few microseconds to a few hundred apart; a spin that outlasts those
// gaps keeps the workers awake through a step (OpenBLAS' and OpenMP's workers spin far longer).
// Spinning is pause instructions (about 10 ns each on the AVX-512 Xeons measured), so the core
// stays cheap for a sibling hyperthread and the clock is read only every few of them.
constexpr auto kSpinBeforeSleeping = std::chrono::microseconds(200);
constexpr int kPausesBetweenClockReads = 32;

void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Returns the first value of `counter` other than `old`.
std::uint32_t wait_for_change(const std::atomic<std::uint32_t>& counter, std::uint32_t old) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinBeforeSleeping;
  do {
    for (int pause = 0; pause < kPausesBetweenClockReads; ++pause) {
      const std::uint32_t now = counter.load(std::memory_order_acquire);
      if (now != old) return now;
      spin_pause();
    }
  } while (std::chrono::steady_clock::now() < deadline);
  counter.wait(old, std::memory_order_acquire);
  return counter.load(std::memory_order_acquire);
}

class IntraOpPool {
 public:
  static IntraOpPool& instance() {
    static IntraOpPool pool;
    return pool;
  }
  IntraOpPool(const IntraOpPool&) = delete;
  IntraOpPool& operator=(const IntraOpPool&) = delete;
  ~IntraOpPool() { stop_workers(); }

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int threads) {
    stop_workers();
    stopping_ = false;
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    const std::uint32_t generation = generation_.load(std::memory_order_relaxed);
    for (int index = 1; index < threads; ++index) {
      std::thread& worker = workers_.emplace_back([this, generation] { work(generation); });
      // Named before it first runs a loop, so traces and system tools (at most 15 characters)
      // see the name from its first event.
      pthread_setname_np(worker.native_handle(), ("tscope cpu " + std::to_string(index)).c_str());
    }
  }

  // False when another thread's loop holds the pool.
  bool try_run(std::int64_t count, std::int64_t grain, const RangeTask& task) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    task_ = &task;
    count_ = count;
    const auto ranges = static_cast<std::uint32_t>(
        std::min<std::int64_t>(threads() * kRangesPerThread, count / grain));
    error_ = nullptr;
    completed_.store(0, std::memory_order_relaxed);
    const std::uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
    claims_.store(pack_claims(generation, ranges, 0), std::memory_order_release);
    generation_.store(generation, std::memory_order_release);
    generation_.notify_all();
    inside_parallel_loop = true;
    run_claimed_ranges(generation);
    inside_parallel_loop = false;
    for (std::uint32_t done = completed_.load(std::memory_order_acquire); done != ranges;
         done = completed_.load(std::memory_order_acquire)) {
      wait_for_change(completed_, done);
    }
    std::exception_ptr error = error_;
    busy_.store(false, std::memory_order_release);
    if (error) std::rethrow_exception(error);
    return true;
  }

 private:
  // More ranges than threads, claimed one at a time: a thread the system holds off a core leaves
  // its share to the others instead of holding up the loop until it runs again.
  static constexpr std::int64_t kRangesPerThread = 4;

  // claims_ holds the loop's generation, its range count and the next unclaimed range, so that a
  // claim made for a loop that has already finished fails instead of running the next loop's
  // range under the old one's description.
  static std::uint64_t pack_claims(std::uint32_t generation, std::uint32_t ranges,
                                   std::uint32_t next) {
    return (std::uint64_t{generation} << 32) | (std::uint64_t{ranges} << 16) | next;
  }

  IntraOpPool() = default;

  // Runs ranges of loop `generation` until none is left unclaimed.
  void run_claimed_ranges(std::uint32_t generation) {
    std::uint64_t claims = claims_.load(std::memory_order_acquire);
    for (;;) {
      const auto ranges = static_cast<std::uint32_t>((claims >> 16) & 0xffff);
      const auto next = static_cast<std::uint32_t>(claims & 0xffff);
      if (static_cast<std::uint32_t>(claims >> 32) != generation || next >= ranges) return;
      if (!claims_.compare_exchange_weak(claims, pack_claims(generation, ranges, next + 1),
                                         std::memory_order_acq_rel, std::memory_order_acquire)) {
        continue;
      }
      run_range(next, ranges);
      if (completed_.fetch_add(1, std::memory_order_acq_rel) + 1 == ranges) {
        completed_.notify_all();
      }
      claims = claims_.load(std::memory_order_acquire);
    }
  }

  void run_range(std::uint32_t index, std::uint32_t ranges) {
    const std::int64_t begin = count_ * index / ranges;
    const std::int64_t end = count_ * (index + 1) / ranges;
    try {
      (*task_)(begin, end);
    } catch (...) {
      const std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void work(std::uint32_t seen) {
    inside_parallel_loop = true;
    for (;;) {
      seen = wait_for_change(generation_, seen);
      if (stopping_) return;
      run_claimed_ranges(seen);
    }
  }

  void stop_workers() {
    if (workers_.empty()) return;
    stopping_ = true;
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (std::thread& worker : workers_)
      worker.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::atomic<bool> busy_{false};
  // Published by the release store of generation_ (or of claims_), read after an acquire of it.
  bool stopping_ = false;
  const RangeTask* task_ = nullptr;
  std::int64_t count_ = 0;
  std::atomic<std::uint32_t> generation_{0};
  std::atomic<std::uint64_t> claims_{0};
  std::atomic<std::uint32_t> completed_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

int count_from_environment() {
  const char* text = std::getenv(std::string(kNumThreadsVariable).c_str());
  if (text != nullptr) {
    const std::string_view value(text);
    int count = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (error == std::errc() && end == value.data() + value.size() && count >= 1) return count;
    throw EngineError(std::string(kNumThreadsVariable) +
                      ": expected a positive thread count, got '" + std::string(value) + "'");
  }
  return std::max(1, openblas_get_num_threads());
}

void apply_thread_count(int count) {
  openblas_set_num_threads(count);
  IntraOpPool::instance().resize(count);
  profiler::set_trace_metadata(trace::kEngineCpuThreadsKey, std::to_string(count));
}

std::once_flag configured;

}  // namespace

void configure_threads_once() {
  std::call_once(configured, [] { apply_thread_count(count_from_environment()); });
}

void run_parallel(std::int64_t count, std::int64_t grain, const RangeTask& task) {
  configure_threads_once();
  IntraOpPool& pool = IntraOpPool::instance();
  if (inside_parallel_loop || pool.threads() == 1 || !pool.try_run(count, grain, task))
    task(0, count);
}

void run_parallel_gemms(std::int64_t count, const RangeTask& task) {
  configure_threads_once();
  IntraOpPool& pool = IntraOpPool::instance();
  if (inside_parallel_loop || pool.threads() == 1 || count < 2) {
    if (count > 0) task(0, count);
    return;
  }
  // Restores OpenBLAS' count on the way out, a range's exception included.
  struct SingleThreadedBlas {
    int threads;
    explicit SingleThreadedBlas(int count) : threads(count) { openblas_set_num_threads(1); }
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
    ~SingleThreadedBlas() { openblas_set_num_threads(threads); }
  };
  const SingleThreadedBlas single_threaded(pool.threads());
  if (!pool.try_run(count, 1, task)) task(0, count);
}

}  // namespace tscope::engine::cpu

namespace tscope::engine {

void set_num_threads(int count) {
  if (count < 1) {
    throw EngineError("set_num_threads: needs at least 1 thread, got " + std::to_string(count));
  }
  cpu::configure_threads_once();
  cpu::apply_thread_count(count);
}

int num_threads() {
  cpu::configure_threads_once();
  return cpu::IntraOpPool::instance().threads();
}

}  // namespace tscope::engine
