#pragma once
// The rules Perfetto's JSON importer applies to a Chrome trace, checked over a file so a test
// can assert that our export loads without events being dropped: ph, ts, pid and tid on every
// event (numbers, as speedscope requires), X durations >= 0, B/E balanced per thread, slices of
// one thread properly nested to the nanosecond, every flow event bound to an existing slice
// with one start and one end per id, the arrow from a launch (or the op around it) to the
// activity it started, and numeric counter values.

#include <filesystem>
#include <string>
#include <vector>

namespace tscope::trace {

struct ChromeTraceReport {
  std::vector<std::string> violations;  // the first few of each rule, with the event
  std::size_t events = 0;
  std::size_t slices = 0;
  std::size_t flows = 0;
  // Flows whose end is an activity with a known launch, and of those, flows whose start slice
  // encloses that launch.
  std::size_t flows_with_launch = 0;
  std::size_t flows_enclosing_launch = 0;
};

// Reads `path` (plain JSON or gzip) and checks every rule above.
ChromeTraceReport check_chrome_trace(const std::filesystem::path& path);

}  // namespace tscope::trace
