#pragma once
// A small direct-mapped cache from a text to what the importer derives from it (its id in the
// builder's string table, what an arg key means). A Chrome trace repeats a few dozen arg keys in
// every event, and its names, "Trace name" values and call stacks over and over, so most lookups
// hit a slot chosen by a hash of the text's length and end bytes and cost one comparison, instead
// of hashing the whole text into a table or comparing it with every known key.

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
    Slot& slot = slots_[slot_of(text)];
    if (slot.used && slot.text == text) return slot.value;
    slot.value = make(text);
    slot.text.assign(text);
    slot.used = true;
    return slot.value;
  }

 private:
  // 4096 slots of texts up to 1 KiB: a few MB at most, and far less for the keys.
  static constexpr std::size_t kSlots = std::size_t{1} << 12;
  static constexpr std::size_t kMaxCachedText = 1024;

  struct Slot {
    std::string text;
    Value value{};
    bool used = false;
  };

  static std::uint64_t load_up_to_8(const char* bytes, std::size_t count) {
    std::uint64_t word = 0;
    if (count == 0) return word;
    std::memcpy(&word, bytes, std::min<std::size_t>(count, sizeof word));
    return word;
  }

  // Texts that share their length and first and last eight bytes share a slot; the comparison on
  // a hit tells them apart, so this only has to spread the common texts.
  static std::size_t slot_of(std::string_view text) {
    const std::size_t tail = text.size() > 8 ? text.size() - 8 : 0;
    std::uint64_t hash = text.size() * 0x9e3779b97f4a7c15ull;
    hash ^= load_up_to_8(text.data(), text.size()) * 0xc2b2ae3d27d4eb4full;
    hash ^= load_up_to_8(text.data() + tail, text.size() - tail) * 0x165667b19e3779f9ull;
    hash ^= hash >> 29;
    return static_cast<std::size_t>(hash) & (kSlots - 1);
  }

  std::vector<Slot> slots_;
};

}  // namespace tscope::trace::chrome_json
