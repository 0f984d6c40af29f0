#pragma once
// A stable pointer at one event of a finalised trace (which kind, which track, which index), small
// enough to pack into one uint64 so findings and viewer selections can store it cheaply.

#include <cstdint>

#include "tscope/trace/event_kinds.h"

namespace tscope::trace {

struct EventRef {
  // Two bits of kind and 32 bits of index leave 30 bits for the track.
  static constexpr std::uint32_t kMaxTrack = (1u << 30) - 1;

  EventKind kind = EventKind::kSpan;
  std::uint32_t track = 0;
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

  auto operator<=>(const EventRef&) const = default;
};

}  // namespace tscope::trace
