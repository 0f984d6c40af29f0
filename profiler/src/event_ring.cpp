#include "event_ring.h"

#include <bit>

namespace tscope::profiler {

// Left uninitialised: the consumer reads only what the producer published, and zeroing a large
// ring up front made a thread's first record fault in every page of it at once.
EventRing::EventRing(std::size_t capacity_bytes)
    : mask_(std::bit_ceil(std::max(capacity_bytes, kMinimumCapacity)) - 1), buffer_(mask_ + 1) {}

EventRing::Slot EventRing::reserve_slow(std::size_t bytes, std::size_t keep_free) {
  const std::size_t offset = static_cast<std::size_t>(head_) & mask_;
  const std::size_t to_end = capacity() - offset;
  const std::size_t padding = bytes > to_end ? to_end : 0;
  const std::size_t needed = bytes + padding + keep_free;
  if (capacity() - static_cast<std::size_t>(head_ - cached_tail_) < needed &&
      free_bytes() < needed) {
    return {};
  }
  if (padding != 0) {
    const RecordHeader pad{static_cast<std::uint32_t>(padding), RecordKind::kPadding, 0, 0};
    std::memcpy(buffer_.get() + offset, &pad, sizeof pad);
    return {buffer_.get(), head_ + padding + bytes};
  }
  return {buffer_.get() + offset, head_ + bytes};
}

}  // namespace tscope::profiler
