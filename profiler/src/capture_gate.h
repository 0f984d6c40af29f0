#pragma once
// The capture window of the running session, applied while the program runs (session.h's
// CaptureWindowOptions): capture is on exactly while the gate holds the record path's generation
// in detail::active_generation, so outside the window every record call costs what it costs with
// no session. The writer thread applies the delay, the duration and toggles; the record path shows
// the gate the names of NVTX pushes and engine steps while a --steps or --capture-range window
// waits for its first range, and the closes on the thread whose range ends the window.

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>

#include "tscope/profiler/session.h"
#include "tscope/trace/capture_window.h"

namespace tscope::profiler {

namespace detail {
// Whether the record path must call CaptureGate::before_open/after_open around pushes and steps,
// and CaptureGate::after_close after pops and step ends. Both false without a window.
extern std::atomic<bool> gate_watches_opens;
extern std::atomic<bool> gate_watches_closes;
}  // namespace detail

class CaptureGate {
 public:
  using NewGeneration = std::uint32_t (*)();

  static CaptureGate& instance();

  // Session start, before the writer thread runs: opens capture under `generation` at once when
  // the window asks for nothing. A later reopening (after a pause) takes a fresh generation from
  // `new_generation`, so that every thread's nesting starts over.
  void begin(const CaptureWindowOptions& window, std::uint32_t generation,
             NewGeneration new_generation, trace::TimeNs now);
  // Writer thread. Each returns the generation capture opened under (0: it did not open).
  std::uint32_t toggle(trace::TimeNs now);
  std::uint32_t advance(trace::TimeNs now);
  // Whether capture is on now; when it last closed, if it opened and is closed now.
  bool capturing() const;
  std::optional<trace::TimeNs> closed_at() const;
  // When advance() next has something to do.
  std::optional<trace::TimeNs> next_deadline() const;
  // Session stop: capture closes; the window, when one was asked for.
  std::optional<trace::CaptureWindow> end(trace::TimeNs now);

  // Record path, while the flags above ask: a range named `name` is about to open on the calling
  // thread (true when its close is to end the window: then after_open follows, with the nesting
  // level it opened at, the depth before it); a range closed on it, leaving `depth` open.
  bool before_open(std::string_view name);
  void after_open(int level);
  void after_close(int depth);

 private:
  bool ready_at(trace::TimeNs now) const;  // every condition but the first range holds
  std::uint32_t open(trace::TimeNs now);
  void close(trace::TimeNs now, bool for_good);
  void update_flags();

  mutable std::mutex mutex_;
  CaptureWindowOptions window_;
  NewGeneration new_generation_ = nullptr;
  std::uint32_t first_generation_ = 0;
  bool running_ = false;
  bool open_ = false;
  bool finished_ = false;   // ended for good: duration over or the closing range ended
  bool toggled_on_ = true;  // --start-paused: off until the first toggle
  bool toggled_ = false;    // a toggle came, which records a window
  bool range_seen_ = true;  // --steps / --capture-range: false until the first range opens
  std::optional<trace::TimeNs> first_open_;
  trace::TimeNs last_close_ = 0;
  // The thread whose close to `closing_level_` ends the window.
  std::optional<pthread_t> closing_thread_;
  int closing_level_ = 0;
};

}  // namespace tscope::profiler
