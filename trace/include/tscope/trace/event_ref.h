#pragma once
// A stable pointer at one event of a finalised trace (which kind, which track, which index), eight
// bytes and packable into one uint64 so findings, flows and viewer selections store it cheaply.

#include <compare>
#include <cstdint>

#include "tscope/trace/event_kinds.h"

namespace tscope::trace {

struct EventRef {
  // Kind and track share one 32-bit word, so a reference (and a Flow's two ends) stays small.
  static constexpr std::uint32_t kMaxTrack = (1u << 24) - 1;

  EventKind kind : 8 = EventKind::kSpan;
  std::uint32_t track : 24 = 0;
  std::uint32_t index = 0;

  std::uint64_t pack() const {
    return (static_cast<std::uint64_t>(kind) << 62) |
           (static_cast<std::uint64_t>(track & kMaxTrack) << 32) | index;
  }
  static EventRef unpack(std::uint64_t packed) {
    return {static_cast<EventKind>(packed >> 62),
            static_cast<std::uint32_t>((packed >> 32) & kMaxTrack),
            static_cast<std::uint32_t>(packed)};
  }

  // Ordered by kind, then track, then index: the order of the packed value.
  std::strong_ordering operator<=>(const EventRef& other) const { return pack() <=> other.pack(); }
  bool operator==(const EventRef& other) const { return pack() == other.pack(); }
};
static_assert(sizeof(EventRef) == 8);

}  // namespace tscope::trace
