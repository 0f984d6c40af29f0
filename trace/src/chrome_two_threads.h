#pragma once
// Runs two independent pieces of the importer's work at once where a second core exists (after the
// last window the reading thread has nothing left to do) and the work is worth a thread, one after
// the other otherwise.

#include <cstddef>
#include <exception>
#include <thread>

namespace tscope::trace::chrome_json {

// Below this many items (flow ends, spans) starting and joining a thread costs more than it saves.
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

}  // namespace tscope::trace::chrome_json
