#pragma once
// A capture session: while it runs, everything recorded through record.h and NVTX in this process
// is streamed by a background writer thread into a .tsc file, so memory stays bounded on long
// runs and a killed process loses at most the last flush interval. One session at a time.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace tscope::profiler {

// Misuse of the capture API or a failure of the session's writer.
class ProfilerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The background thread of a running session and what it writes with (session.cpp).
class SessionWriter;

// Which part of the run a session captures (`tscope record`'s --delay, --duration, --steps,
// --capture-range, --start-paused), decided while the program runs: outside the window the
// record path stores nothing. Capture opens once every condition holds (the delay passed,
// started by a toggle when paused, and the first range of the steps or of the name opening
// then) and ends for good when the duration is over or that range (the last step) closes; a toggle
// pauses and resumes it. The trace records the window, from the first opening to the last close.
struct CaptureWindowOptions {
  std::optional<std::int64_t> not_before_ns;  // CLOCK_MONOTONIC; the program's start plus --delay
  std::optional<std::int64_t> duration_ns;    // from the window's opening
  // Steps first to last inclusive, as step_names.h numbers them: the window opens as the first of
  // them (or a later one) begins and closes when the last has ended.
  std::optional<std::pair<std::int64_t, std::int64_t>> steps;
  // An NVTX push/pop range's name: from the first time one opens until it closes.
  std::optional<std::string> range_name;
  // Each byte that can be read from this descriptor toggles capture (-1: none); a window is
  // recorded once one did.
  int toggle_descriptor = -1;
  bool start_paused = false;  // off until the first toggle

  bool any() const { return not_before_ns || duration_ns || steps || range_name || start_paused; }
};

struct SessionOptions {
  std::filesystem::path output;
  // Each recording thread's buffer; a thread gets its buffer when it first records and keeps it.
  std::size_t buffer_bytes_per_thread = std::size_t{4} << 20;
  // How often the writer drains the buffers and writes a chunk to the file.
  std::chrono::milliseconds flush_interval{100};
  // Samples process RSS and CPU utilisation as counters once per flush interval.
  bool sample_process_counters = true;
  CaptureWindowOptions window{};
};

// Trace metadata key, followed by an OS thread id, of how many events that thread dropped because
// its buffer was full (only threads that dropped any have one; the total is dropped_events).
inline constexpr std::string_view kDroppedEventsOfThreadKey = "profiler.dropped_events.thread.";

// What a stopped session wrote.
struct SessionSummary {
  std::uint64_t events = 0;          // events written to the trace
  std::uint64_t dropped_events = 0;  // events lost because a thread's buffer was full
  std::uint64_t bytes = 0;           // size of the .tsc file
};

class Session {
 public:
  explicit Session(SessionOptions options);
  // Stops a running session; errors are swallowed here, call stop() to see them.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Creates the output file and starts recording. Throws ProfilerError when another session is
  // running, trace::IoError when the file cannot be created.
  void start();
  // Stops recording, writes what the buffers hold, closes open ranges at the stop time and closes
  // the file. Rethrows an error the writer thread met. Idempotent.
  SessionSummary stop();
  bool running() const;

  const SessionOptions& options() const { return options_; }

  // Asks the running session, if any, to finish its file from a signal handler and waits (at
  // most `timeout`) until it has; uses only async-signal-safe calls.
  static void finish_from_signal_handler(std::chrono::milliseconds timeout);

 private:
  SessionOptions options_;
  std::unique_ptr<SessionWriter> writer_;
};

}  // namespace tscope::profiler
