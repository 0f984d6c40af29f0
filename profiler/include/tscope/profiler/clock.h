#pragma once
// Timestamps of the record path: the CPU's invariant time-stamp counter where there is one (it
// costs a fraction of clock_gettime), mapped to CLOCK_MONOTONIC nanoseconds off the hot path by
// the session's writer thread.

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <ctime>
#endif

#include "tscope/trace/records.h"

namespace tscope::profiler {

using Ticks = std::uint64_t;

inline Ticks now_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<Ticks>(now.tv_sec) * 1'000'000'000u + static_cast<Ticks>(now.tv_nsec);
#endif
}

// CLOCK_MONOTONIC in nanoseconds, the trace model's time domain.
trace::TimeNs monotonic_ns();

// Converts ticks to CLOCK_MONOTONIC nanoseconds. The rate is refined at every resync() from the
// whole span since construction, so its error shrinks as a session runs; conversions use the
// latest anchor at or before the tick so a changed rate never moves earlier events.
class TickClock {
 public:
  TickClock();
  // Takes a fresh (ticks, ns) anchor and refines the rate. Called by the writer once per cycle.
  void resync();
  trace::TimeNs to_ns(Ticks ticks) const;

 private:
  struct Anchor {
    Ticks ticks = 0;
    trace::TimeNs ns = 0;
  };
  static Anchor sample();

  Anchor first_;
  Anchor previous_;
  Anchor latest_;
  double ns_per_tick_ = 1.0;
};

}  // namespace tscope::profiler
