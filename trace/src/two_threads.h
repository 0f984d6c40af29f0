#pragma once
// Runs two independent pieces of work at once where a second core exists and the work is worth a
// thread, one after the other otherwise: the Chrome reader's flow binding (after the last window
// its reading thread has nothing left to do) and the sort of the flows in TraceBuilder::finalize.

#include <cstddef>
#include <exception>
#include <thread>

namespace tscope::trace {

// Below this many items (flow ends, flows) starting and joining a thread costs more than it saves.
constexpr std::size_t kMinItemsForSecondThread = std::size_t{1} << 14;

template <typename First, typename Second>
void run_both(std::size_t items, First&& first, Second&& second) {
  if (items < kMinItemsForSecondThread || std::thread::hardware_concurrency() < 2) {
    first();
    second();
    return;
  }
  std::exception_ptr error;
  std::thread helper([&] {
    try {
      first();
    } catch (...) {
      error = std::current_exception();
    }
  });
  try {
    second();
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tscope::trace
