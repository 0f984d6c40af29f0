#include <atomic>
#include <cstdio>
#include <exception>
#include <string>

#include "injection_boundary.h"
#include "tscope/profiler/environment.h"
#include "tscope/profiler/gpu_capture.h"
#include "tscope/profiler/record.h"

namespace tscope::profiler {

std::optional<std::string> injection_step_failure(const std::function<void()>& step) noexcept {
  try {
    step();
    return std::nullopt;
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void initialize_cuda_injection() noexcept {
  // The driver calls its injection once per process; a program whose own profiler also received
  // the call must still say things once.
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return;
  bool recording = false;
  if (const auto failure =
          injection_step_failure([&] { recording = start_environment_session(); })) {
    std::fprintf(stderr, "tscope: recording is off for this program: %s\n", failure->c_str());
    return;
  }
  // A child of the recorded program inherits the variables but is not meant to record.
  if (!recording) return;
  const auto failure = injection_step_failure(&start_gpu_capture);
  if (!failure) return;
  const std::string reason = "GPU capture is off: " + *failure;
  std::fprintf(stderr, "tscope: %s (the trace holds host events only)\n", reason.c_str());
  // The note in the trace is worth less than the program: a failure to write it is dropped.
  (void)injection_step_failure(
      [&] { instant(reason, trace::Category::kOther, {}, NameStorage::kCopy); });
}

}  // namespace tscope::profiler
