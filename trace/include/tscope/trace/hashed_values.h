#pragma once
// An open-addressed table of what was stored under each 64-bit hash, for the side tables that keep
// one copy of each distinct record (RecordInterner, ArgRuns): one flat array probed linearly, where
// a hash map of vectors cost a node, a vector and their cache misses for every lookup.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tscope::trace {

template <typename Value>
class HashedValues {
 public:
  // The value stored under `hash` that `equal` accepts; else `make()`'s, stored under `hash`.
  template <typename Equal, typename Make>
  Value find_or_add(std::uint64_t hash, Equal&& equal, Make&& make) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t slot = home(hash);; slot = (slot + 1) & (slots_.size() - 1)) {
      Slot& entry = slots_[slot];
      if (!entry.used) {
        entry.value = make();
        entry.hash = hash;
        entry.used = true;
        ++size_;
        return entry.value;
      }
      if (entry.hash == hash && equal(entry.value)) return entry.value;
    }
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    Value value{};
    bool used = false;
  };

  // The slot a hash starts probing at: the top bits of a product, which depend on every bit.
  std::size_t home(std::uint64_t hash) const {
    const int bits = std::countr_zero(slots_.size());
    return static_cast<std::size_t>(((hash ^ (hash >> 32)) * 0x9e3779b97f4a7c15ull) >> (64 - bits));
  }

  void grow() {
    std::vector<Slot> old =
        std::exchange(slots_, std::vector<Slot>(std::max<std::size_t>(16, 2 * slots_.size())));
    for (const Slot& entry : old) {
      if (!entry.used) continue;
      std::size_t slot = home(entry.hash);
      while (slots_[slot].used)
        slot = (slot + 1) & (slots_.size() - 1);
      slots_[slot] = entry;
    }
  }

  std::vector<Slot> slots_;  // a power of two of them, at most half used
  std::size_t size_ = 0;
};

}  // namespace tscope::trace
