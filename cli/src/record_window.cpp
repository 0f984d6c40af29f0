#include "record_window.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>

#include "tscope/profiler/environment.h"

namespace tscope::cli {
namespace {

constexpr std::string_view kNvtxPrefix = "nvtx:";

int toggle_write_end = -1;

void note_toggle(int) {
  const int saved = errno;
  const char toggle = 't';
  (void)!write(toggle_write_end, &toggle, 1);
  errno = saved;
}

}  // namespace

std::string parse_capture_range(const std::string& text) {
  if (!text.starts_with(kNvtxPrefix) || text.size() == kNvtxPrefix.size()) {
    throw WindowSyntaxError(fmt::format(
        "'{}' is not a capture range of the form nvtx:NAME (an NVTX range's name)", text));
  }
  return text.substr(kNvtxPrefix.size());
}

int install_capture_toggle() {
  int ends[2];
  // The write end never blocks the handler: a full pipe (thousands of unread toggles) drops one.
  if (pipe2(ends, O_CLOEXEC) != 0 || fcntl(ends[1], F_SETFL, O_NONBLOCK) != 0 ||
      fcntl(ends[0], F_SETFD, 0) != 0) {
    throw std::system_error(errno, std::generic_category(), "the SIGUSR1 toggle pipe");
  }
  toggle_write_end = ends[1];
  struct sigaction toggle {};
  toggle.sa_handler = note_toggle;
  sigemptyset(&toggle.sa_mask);
  toggle.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &toggle, nullptr);
  return ends[0];
}

std::vector<std::string> window_environment(const RecordWindowSettings& settings,
                                            trace::TimeNs run_start, int toggle_descriptor) {
  std::vector<std::string> entries;
  if (settings.delay) {
    entries.push_back(
        fmt::format("{}={}", profiler::kRecordNotBeforeVariable, run_start + *settings.delay));
  }
  if (settings.duration && *settings.duration > 0) {
    entries.push_back(fmt::format("{}={}", profiler::kRecordDurationVariable, *settings.duration));
  }
  if (settings.steps) {
    entries.push_back(fmt::format("{}={}:{}", profiler::kRecordStepsVariable, settings.steps->first,
                                  settings.steps->last));
  }
  if (settings.range_name) {
    entries.push_back(
        fmt::format("{}={}", profiler::kRecordCaptureRangeVariable, *settings.range_name));
  }
  if (toggle_descriptor >= 0) {
    entries.push_back(fmt::format("{}={}", profiler::kRecordToggleFdVariable, toggle_descriptor));
  }
  if (settings.start_paused)
    entries.push_back(fmt::format("{}=1", profiler::kRecordStartPausedVariable));
  return entries;
}

}  // namespace tscope::cli
