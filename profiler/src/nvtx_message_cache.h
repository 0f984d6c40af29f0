#pragma once
// NVTX's ASCII messages recorded as static text: a push records a pointer to an interned copy of
// its message instead of copying the text into the record. NVTX does not promise that a message
// outlives the call (a program may push from a buffer it rewrites), so each thread remembers, per
// message address, the interned copy it saw there last, and reuses it only while the text at that
// address still equals it (strcmp); text seen twice at an address is interned. Interned copies live
// until the process ends, since records and the writer's string cache point at them; once
// kMaxInternedBytes of them exist, messages not yet interned are copied into their records.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "tscope/trace/event_kinds.h"

namespace tscope::profiler {

// A message as a range records it: its text (interned, or the caller's own when `interned` is
// false and the record must copy it) and its category (a step name is kStep).
struct NvtxMessage {
  std::string_view text;
  bool interned = false;
  trace::Category category = trace::Category::kUserAnnotation;
};

// The category of a pushed range's name: PyTorch's ProfilerStep#N and ranges named "step N" are
// the run's steps for the analyzer.
trace::Category push_category(std::string_view name);

class NvtxMessageCache;

// The calling thread's cache, made on its first message. initial-exec: one load relative to the
// thread pointer, also in the injection library (a pointer fits the static TLS that glibc keeps
// for libraries loaded later; the cache itself would not).
[[gnu::tls_model(
    "initial-exec")]] extern thread_local constinit NvtxMessageCache* t_nvtx_message_cache;

class NvtxMessageCache {
 public:
  static constexpr std::size_t kMaxInternedBytes = std::size_t{4} << 20;

  static NvtxMessageCache& for_this_thread() {
    NvtxMessageCache* cache = t_nvtx_message_cache;
    if (cache == nullptr) [[unlikely]]
      cache = create_for_this_thread();
    return *cache;
  }

  [[gnu::always_inline]] NvtxMessage find(const char* message) {
    const Slot& slot = slots_[slot_index(message)];
    if (slot.address == message && std::strcmp(message, slot.interned) == 0) [[likely]]
      return {{slot.interned, slot.length}, true, slot.category};
    return refill(message);
  }

 private:
  static constexpr int kSlotBits = 8;

  struct Slot {
    const char* address = nullptr;   // whose text is interned as `interned`
    const char* interned = nullptr;  // NUL-terminated
    std::size_t length = 0;
    trace::Category category = trace::Category::kUserAnnotation;
    // Text seen once at an address and not interned yet: where, and its hash.
    const char* pending_address = nullptr;
    std::size_t pending_hash = 0;
  };

  static std::size_t slot_index(const char* message) {
    // Fibonacci hashing: literals sit at any byte offset, so every address bit takes part.
    return static_cast<std::size_t>(
        (std::bit_cast<std::uintptr_t>(message) * std::uint64_t{0x9E3779B97F4A7C15}) >>
        (64 - kSlotBits));
  }
  static NvtxMessageCache* create_for_this_thread();
  NvtxMessage refill(const char* message);

  std::array<Slot, std::size_t{1} << kSlotBits> slots_{};
};

}  // namespace tscope::profiler
