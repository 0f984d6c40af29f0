#include "capture_gate.h"

#include "tscope/profiler/record.h"
#include "tscope/profiler/step_names.h"

namespace tscope::profiler {

namespace detail {
std::atomic<bool> gate_watches_opens{false};
std::atomic<bool> gate_watches_closes{false};
}  // namespace detail

CaptureGate& CaptureGate::instance() {
  // Never destroyed: threads may record while static objects are torn down at exit.
  static CaptureGate* const gate = new CaptureGate();
  return *gate;
}

void CaptureGate::begin(const CaptureWindowOptions& window, std::uint32_t generation,
                        NewGeneration new_generation, trace::TimeNs now) {
  const std::lock_guard lock(mutex_);
  window_ = window;
  new_generation_ = new_generation;
  first_generation_ = generation;
  running_ = true;
  open_ = false;
  finished_ = false;
  toggled_on_ = !window.start_paused;
  toggled_ = false;
  range_seen_ = !window.steps && !window.range_name;
  first_open_.reset();
  last_close_ = now;
  closing_thread_.reset();
  if (range_seen_ && ready_at(now)) open(now);
  update_flags();
}

bool CaptureGate::ready_at(trace::TimeNs now) const {
  return running_ && !finished_ && toggled_on_ &&
         (!window_.not_before_ns || now >= *window_.not_before_ns);
}

std::uint32_t CaptureGate::open(trace::TimeNs now) {
  // The first opening records under the session's generation, which the collector expects.
  const std::uint32_t generation = first_open_ ? new_generation_() : first_generation_;
  open_ = true;
  if (!first_open_) first_open_ = now;
  detail::active_generation.store(generation, std::memory_order_release);
  return generation;
}

void CaptureGate::close(trace::TimeNs now, bool for_good) {
  if (open_) {
    detail::active_generation.store(0, std::memory_order_release);
    open_ = false;
    last_close_ = now;
  }
  if (for_good) finished_ = true;
  closing_thread_.reset();
  update_flags();
}

void CaptureGate::update_flags() {
  const bool names = running_ && !finished_ && (window_.steps || window_.range_name);
  detail::gate_watches_opens.store(names, std::memory_order_release);
  detail::gate_watches_closes.store(running_ && closing_thread_.has_value(),
                                    std::memory_order_release);
}

std::uint32_t CaptureGate::toggle(trace::TimeNs now) {
  const std::lock_guard lock(mutex_);
  if (!running_ || finished_) return 0;
  toggled_on_ = !toggled_on_;
  toggled_ = true;
  if (!toggled_on_) {
    close(now, false);
    return 0;
  }
  return range_seen_ && ready_at(now) ? open(now) : 0;
}

std::uint32_t CaptureGate::advance(trace::TimeNs now) {
  const std::lock_guard lock(mutex_);
  if (!running_ || finished_) return 0;
  // The duration counts from the window's first opening, pauses included. The window ends when
  // capture did (this wake-up), so that no event recorded before it lies outside.
  if (first_open_ && window_.duration_ns && now >= *first_open_ + *window_.duration_ns) {
    close(now, true);
    return 0;
  }
  return !open_ && range_seen_ && ready_at(now) ? open(now) : 0;
}

bool CaptureGate::capturing() const {
  const std::lock_guard lock(mutex_);
  return open_;
}

std::optional<trace::TimeNs> CaptureGate::closed_at() const {
  const std::lock_guard lock(mutex_);
  if (open_ || !first_open_) return std::nullopt;
  return last_close_;
}

std::optional<trace::TimeNs> CaptureGate::next_deadline() const {
  const std::lock_guard lock(mutex_);
  if (!running_ || finished_) return std::nullopt;
  if (first_open_ && window_.duration_ns) return *first_open_ + *window_.duration_ns;
  if (!first_open_ && window_.not_before_ns) return *window_.not_before_ns;
  return std::nullopt;
}

std::optional<trace::CaptureWindow> CaptureGate::end(trace::TimeNs now) {
  const std::lock_guard lock(mutex_);
  if (!running_) return std::nullopt;
  close(now, true);
  running_ = false;
  update_flags();
  if (!window_.any() && !toggled_) return std::nullopt;
  // Never opened: an empty window at the end of the run.
  if (!first_open_) return trace::CaptureWindow{now, now};
  return trace::CaptureWindow{*first_open_, last_close_};
}

bool CaptureGate::before_open(std::string_view name) {
  // Locked before the window is read: a push only comes here while a window watches names.
  const std::lock_guard lock(mutex_);
  if (!running_ || finished_) return false;
  const std::optional<std::int64_t> step = window_.steps ? step_number(name) : std::nullopt;
  const bool named = window_.range_name && name == *window_.range_name;
  if (!step && !named) return false;
  const trace::TimeNs now = monotonic_ns();
  if (named) {
    if (range_seen_ || !ready_at(now)) return false;
    range_seen_ = true;
    open(now);
    return true;
  }
  const std::int64_t number = step.value_or(0);
  const auto [first, last] = *window_.steps;
  // A step past the last one begins (the last one was skipped): the window ends before it.
  if (number > last) {
    if (first_open_) close(now, true);
    return false;
  }
  if (number < first) return false;
  if (!range_seen_ && ready_at(now)) {
    range_seen_ = true;
    open(now);
  }
  return open_ && number == last;
}

void CaptureGate::after_open(int level) {
  const std::lock_guard lock(mutex_);
  if (!open_) return;
  closing_thread_ = pthread_self();
  closing_level_ = level;
  update_flags();
}

void CaptureGate::after_close(int depth) {
  const std::lock_guard lock(mutex_);
  if (!closing_thread_ || !pthread_equal(*closing_thread_, pthread_self())) return;
  if (depth > closing_level_) return;
  close(monotonic_ns(), true);
}

}  // namespace tscope::profiler
