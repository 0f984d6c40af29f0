#include "tscope/profiler/environment.h"

#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "tscope/profiler/session.h"

namespace tscope::profiler {
namespace {

// Long enough to drain and compress the buffers; short enough that a stuck writer cannot keep
// an interrupted program alive.
constexpr std::chrono::milliseconds kSignalFinishTimeout{3000};

void finish_and_reraise(int signal_number) {
  Session::finish_from_signal_handler(kSignalFinishTimeout);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void finish_on_signal(int signal_number) {
  struct sigaction current {};
  if (sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction handler {};
  handler.sa_handler = finish_and_reraise;
  sigemptyset(&handler.sa_mask);
  sigaction(signal_number, &handler, nullptr);
}

std::optional<std::uint64_t> positive_variable(std::string_view name) {
  const char* text = std::getenv(name.data());
  if (text == nullptr) return std::nullopt;
  std::uint64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || value == 0) return std::nullopt;
  return value;
}

// "A:B" with A <= B, both at least 0.
std::optional<std::pair<std::int64_t, std::int64_t>> steps_variable() {
  const char* text = std::getenv(kRecordStepsVariable.data());
  if (text == nullptr) return std::nullopt;
  const char* end = text + std::strlen(text);
  std::int64_t first = 0;
  std::int64_t last = 0;
  const auto [colon, first_error] = std::from_chars(text, end, first);
  if (first_error != std::errc() || colon == end || *colon != ':') return std::nullopt;
  const auto [stop, last_error] = std::from_chars(colon + 1, end, last);
  if (last_error != std::errc() || stop != end || first < 0 || last < first) return std::nullopt;
  return std::pair{first, last};
}

CaptureWindowOptions window_from_environment() {
  CaptureWindowOptions window;
  if (const auto not_before = positive_variable(kRecordNotBeforeVariable))
    window.not_before_ns = static_cast<std::int64_t>(*not_before);
  if (const auto duration = positive_variable(kRecordDurationVariable))
    window.duration_ns = static_cast<std::int64_t>(*duration);
  window.steps = steps_variable();
  if (const char* name = std::getenv(kRecordCaptureRangeVariable.data());
      name != nullptr && *name != '\0')
    window.range_name = name;
  if (const auto descriptor = positive_variable(kRecordToggleFdVariable))
    window.toggle_descriptor = static_cast<int>(*descriptor);
  window.start_paused = positive_variable(kRecordStartPausedVariable).has_value();
  return window;
}

SessionOptions options_from_environment(const char* output) {
  SessionOptions options{.output = output, .window = window_from_environment()};
  if (const auto bytes = positive_variable(kRecordBufferBytesVariable))
    options.buffer_bytes_per_thread = static_cast<std::size_t>(*bytes);
  if (const auto milliseconds = positive_variable(kRecordFlushMsVariable))
    options.flush_interval = std::chrono::milliseconds(*milliseconds);
  return options;
}

bool meant_for_this_process() {
  const char* pid = std::getenv(kRecordPidVariable.data());
  return pid == nullptr || std::to_string(getpid()) == pid;
}

}  // namespace

// Stops the session at exit, which completes its file. When the writer failed (a full disk), the
// recording ended there: says so once, and leaves the program's exit code alone.
struct SessionAtExit {
  std::unique_ptr<Session> session;
  ~SessionAtExit() {
    if (!session) return;
    try {
      session->stop();
    } catch (const std::exception& error) {
      std::fprintf(stderr,
                   "tscope: recording stopped early: %s; the trace keeps what was written "
                   "before\n",
                   error.what());
    }
  }
};

bool start_environment_session() {
  static SessionAtExit at_exit;
  static std::once_flag started;
  std::call_once(started, [] {
    const char* output = std::getenv(kRecordOutputVariable.data());
    if (output == nullptr || *output == '\0' || !meant_for_this_process()) return;
    auto created = std::make_unique<Session>(options_from_environment(output));
    created->start();
    at_exit.session = std::move(created);
    finish_on_signal(SIGINT);
    finish_on_signal(SIGTERM);
  });
  return at_exit.session != nullptr && at_exit.session->running();
}

}  // namespace tscope::profiler
