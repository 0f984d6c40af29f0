// A program that knows nothing of tensorscope and records NVTX ranges at a steady rate, for the
// kill tests: `steady_nvtx_program MS` prints "ready PID", then for MS milliseconds opens and
// closes the range "tick" (about 200 us each) on two threads, and prints "done N" with the number
// of ranges it closed before exiting 0.

#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

std::atomic<long> closed_ranges{0};

void tick_until(std::chrono::steady_clock::time_point end) {
  while (std::chrono::steady_clock::now() < end) {
    nvtxRangePushA("tick");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    nvtxRangePop();
    closed_ranges.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int milliseconds = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
  std::thread worker(tick_until, end);
  tick_until(end);
  worker.join();
  std::printf("done %ld\n", closed_ranges.load());
  std::fflush(stdout);
  return 0;
}
