#include "tscope/profiler/clock.h"

#include <ctime>

namespace tscope::profiler {
namespace {

// Long enough that clock_gettime's jitter (well under a microsecond) is a small error in the
// first rate estimate; resync() replaces it with a rate over the whole session anyway.
constexpr trace::TimeNs kCalibrationNs = 2'000'000;

}  // namespace

trace::TimeNs monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<trace::TimeNs>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

TickClock::Anchor TickClock::sample() {
  // The tighter the bracket of ticks around the clock read, the better the pair; a few tries
  // avoid one that a preemption stretched.
  Anchor best;
  Ticks best_width = ~Ticks{0};
  for (int attempt = 0; attempt < 5; ++attempt) {
    const Ticks before = now_ticks();
    const trace::TimeNs ns = monotonic_ns();
    const Ticks after = now_ticks();
    if (after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, ns};
    }
  }
  return best;
}

TickClock::TickClock() {
  static const double calibrated_ns_per_tick = [] {
    const Anchor start = sample();
    Anchor end = sample();
    while (end.ns - start.ns < kCalibrationNs)
      end = sample();
    return end.ticks == start.ticks ? 1.0
                                    : static_cast<double>(end.ns - start.ns) /
                                          static_cast<double>(end.ticks - start.ticks);
  }();
  ns_per_tick_ = calibrated_ns_per_tick;
  first_ = sample();
  previous_ = first_;
  latest_ = first_;
}

void TickClock::resync() {
  const Anchor now = sample();
  if (now.ticks > first_.ticks && now.ns - first_.ns >= kCalibrationNs) {
    ns_per_tick_ =
        static_cast<double>(now.ns - first_.ns) / static_cast<double>(now.ticks - first_.ticks);
  }
  previous_ = latest_;
  latest_ = now;
}

trace::TimeNs TickClock::to_ns(Ticks ticks) const {
  const Anchor& anchor = ticks >= latest_.ticks ? latest_ : previous_;
  const double delta = static_cast<double>(static_cast<std::int64_t>(ticks - anchor.ticks));
  return anchor.ns + static_cast<trace::TimeNs>(delta * ns_per_tick_);
}

}  // namespace tscope::profiler
