#pragma once
// The per-thread event buffer: a single-producer, single-consumer ring of variable-size records.
// The owning thread appends without locks or allocation; the session's writer thread drains it.
// A record never straddles the end of the buffer: the producer pads to the end instead.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ring_memory.h"

namespace tscope::profiler {

// Every record starts with this header; `size` counts the header and is a multiple of 8.
enum class RecordKind : std::uint8_t {
  kPadding,
  kBegin,
  kEnd,
  kInstant,
  kCounter,
  kFlow,
  kMemory,
  kOp,
  kAsyncBegin,
  kAsyncEnd,
  kThreadName,
};

struct RecordHeader {
  std::uint32_t size = 0;
  RecordKind kind = RecordKind::kPadding;
  std::uint8_t generation = 0;  // low bits of the session that wrote it
  std::uint16_t aux = 0;        // kind-specific small value (category, flow kind, ...)
};
static_assert(sizeof(RecordHeader) == 8);

inline constexpr std::size_t kRecordAlignment = 8;

constexpr std::size_t round_up_record(std::size_t bytes) {
  return (bytes + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
}

class EventRing {
 public:
  static constexpr std::size_t kMinimumCapacity = 4096;

  // Rounds `capacity_bytes` up to a power of two of at least kMinimumCapacity.
  explicit EventRing(std::size_t capacity_bytes);

  std::size_t capacity() const {
    // Stated so that the compiler drops size checks that a record of a fixed size always passes.
    if (mask_ + 1 < kMinimumCapacity) __builtin_unreachable();
    return mask_ + 1;
  }

  // Producer: bytes the producer may still append before the ring is full, assuming the writer
  // drains nothing more (a lower bound).
  std::size_t free_bytes() {
    cached_tail_ = tail_.load(std::memory_order_acquire);
    return capacity() - static_cast<std::size_t>(head_ - cached_tail_);
  }

  // Producer: where a record of `bytes` (a multiple of 8, header included) goes, and the head
  // that publishes it (`commit(slot.next_head)` once written), or a null `bytes` when the ring
  // cannot hold it, after padding to the end, with `keep_free` bytes to spare. The head is known
  // before the record is written: the record's bytes may alias anything, so the ring's fields
  // would be loaded again after them.
  struct Slot {
    std::byte* bytes = nullptr;
    std::uint64_t next_head = 0;
  };
  Slot reserve(std::size_t bytes, std::size_t keep_free) {
    const std::size_t offset = static_cast<std::size_t>(head_) & mask_;
    // The common case, inline: the record fits before the end and the last tail seen leaves
    // room. Padding and a fresh look at the tail are out of line, keeping the record path short.
    if (bytes <= capacity() - offset &&
        capacity() - static_cast<std::size_t>(head_ - cached_tail_) >= bytes + keep_free)
        [[likely]] {
      return {buffer_.get() + offset, head_ + bytes};
    }
    return reserve_slow(bytes, keep_free);
  }
  void commit(std::uint64_t head) {
    head_ = head;
    published_head_.store(head, std::memory_order_release);
  }

  // Consumer: calls visit(header, record bytes) for every published record in order and frees
  // their space. Returns the number of records visited.
  template <typename Visit>
  std::size_t drain(Visit&& visit) {
    const std::uint64_t head = published_head_.load(std::memory_order_acquire);
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    std::size_t visited = 0;
    while (tail < head) {
      const std::byte* record = buffer_.get() + (static_cast<std::size_t>(tail) & mask_);
      RecordHeader header;
      std::memcpy(&header, record, sizeof header);
      if (header.kind != RecordKind::kPadding) {
        visit(header, record);
        ++visited;
      }
      tail += header.size;
    }
    tail_.store(tail, std::memory_order_release);
    return visited;
  }

  // Consumer: forgets everything published so far (records of an earlier session).
  void discard() {
    tail_.store(published_head_.load(std::memory_order_acquire), std::memory_order_release);
  }

 private:
  Slot reserve_slow(std::size_t bytes, std::size_t keep_free);

  std::size_t mask_;
  RingMemory buffer_;
  // Producer-owned.
  std::uint64_t head_ = 0;
  std::uint64_t cached_tail_ = 0;
  // Shared, each on its own cache line so producer and consumer do not contend.
  alignas(64) std::atomic<std::uint64_t> published_head_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
};

}  // namespace tscope::profiler
