#pragma once
// A small direct-mapped cache from a text to what the importer derives from it (its id in the
// builder's string table). A Chrome trace repeats a few dozen arg keys in every event, and its
// names, "Trace name" values and call stacks over and over, so most lookups hit a slot chosen by
// a hash of the text's length and end bytes and cost one comparison, instead of hashing the whole
// text into a table.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tscope::trace::chrome_json {

template <typename Value>
class ChromeTextCache {
 public:
  ChromeTextCache() : slots_(kSlots) {}

  // The value for `text`, from `make(text)` when the text is not in its slot.
  template <typename Make>
  Value find_or_make(std::string_view text, Make&& make) {
    if (text.size() > kMaxCachedText) return make(text);
    const Ends ends = ends_of(text);
    Slot& slot = slots_[slot_of(text.size(), ends)];
    // The ends compared as two integers cover a text of up to 16 bytes; a longer one's middle
    // is compared too.
    if (slot.used && slot.ends == ends && slot.text.size() == text.size() &&
        (text.size() <= 16 ||
         std::memcmp(slot.text.data() + 8, text.data() + 8, text.size() - 16) == 0)) {
      return slot.value;
    }
    slot.value = make(text);
    slot.text.assign(text);
    slot.ends = ends;
    slot.used = true;
    return slot.value;
  }

 private:
  // 4096 slots of texts up to 4 KiB: 16 MB at most, far less in practice (Kineto's distinct
  // names and call stacks are a few hundred). Call stacks of deep Python code pass 1 KiB, and one
  // hashed for the string table costs as much as comparing it a dozen times.
  static constexpr int kSlotBits = 12;
  static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
  static constexpr std::size_t kMaxCachedText = 4096;

  // A text's first and last eight bytes (overlapping for a shorter one), zero-filled.
  struct Ends {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    bool operator==(const Ends&) const = default;
  };

  struct Slot {
    std::string text;
    Ends ends;
    Value value{};
    bool used = false;
  };

  static std::uint64_t load_up_to_8(const char* bytes, std::size_t count) {
    std::uint64_t word = 0;
    if (count == 0) return word;
    std::memcpy(&word, bytes, std::min<std::size_t>(count, sizeof word));
    return word;
  }

  static Ends ends_of(std::string_view text) {
    const std::size_t tail = text.size() > 8 ? text.size() - 8 : 0;
    return {load_up_to_8(text.data(), text.size()),
            load_up_to_8(text.data() + tail, text.size() - tail)};
  }

  // Texts that share their length and first and last eight bytes share a slot; the comparison on
  // a hit tells them apart, so this only has to spread the common texts.
  static std::size_t slot_of(std::size_t size, const Ends& ends) {
    std::uint64_t hash = size * 0x9e3779b97f4a7c15ull;
    hash ^= ends.first * 0xc2b2ae3d27d4eb4full;
    hash ^= ends.last * 0x165667b19e3779f9ull;
    // A product's top bits depend on every bit of its operands (its low bits only on the operands'
    // low bits, which left names that differ in their last bytes, "aten::op_12" and "aten::op_34",
    // in one slot).
    hash ^= hash >> 32;
    return static_cast<std::size_t>((hash * 0x9e3779b97f4a7c15ull) >> (64 - kSlotBits));
  }

  std::vector<Slot> slots_;
};

}  // namespace tscope::trace::chrome_json
