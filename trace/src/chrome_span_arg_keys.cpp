#include "chrome_span_arg_keys.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace tscope::trace::chrome_json {
namespace {

struct KeyName {
  std::string_view key;
  SpanArgKey meaning;
};

// Sorted by length: a key is compared only with the known keys of its length.
constexpr std::array kSpanArgKeys{
    KeyName{"grid", SpanArgKey::kGrid},
    KeyName{"block", SpanArgKey::kBlock},
    KeyName{"bytes", SpanArgKey::kBytes},
    KeyName{"flops", SpanArgKey::kFlops},
    KeyName{"device", SpanArgKey::kDevice},
    KeyName{"stream", SpanArgKey::kStream},
    KeyName{"copy kind", SpanArgKey::kCopyKind},
    KeyName{"src memory", SpanArgKey::kSourceMemory},
    KeyName{"dst memory", SpanArgKey::kDestinationMemory},
    KeyName{"Input Dims", SpanArgKey::kInputDims},
    KeyName{"bytes read", SpanArgKey::kBytesRead},
    KeyName{"correlation", SpanArgKey::kCorrelation},
    KeyName{"External id", SpanArgKey::kExternalId},
    KeyName{"external id", SpanArgKey::kExternalId},
    KeyName{"tensors read", SpanArgKey::kTensorsRead},
    KeyName{"shared memory", SpanArgKey::kSharedMemory},
    KeyName{"bytes written", SpanArgKey::kBytesWritten},
    KeyName{"tensors written", SpanArgKey::kTensorsWritten},
    KeyName{"registers per thread", SpanArgKey::kRegistersPerThread},
    KeyName{"static shared memory", SpanArgKey::kStaticSharedMemory},
    KeyName{"dynamic shared memory", SpanArgKey::kDynamicSharedMemory},
};
constexpr std::size_t kLongestSpanArgKey = kSpanArgKeys.back().key.size();
static_assert(std::is_sorted(kSpanArgKeys.begin(), kSpanArgKeys.end(),
                             [](const KeyName& a, const KeyName& b) {
                               return a.key.size() < b.key.size();
                             }));

// kSpanArgKeys' first index of each length, and one past the last length's.
constexpr auto kSpanArgKeysByLength = [] {
  std::array<std::uint8_t, kLongestSpanArgKey + 2> first{};
  std::size_t index = 0;
  for (std::size_t length = 0; length <= kLongestSpanArgKey + 1; ++length) {
    while (index < kSpanArgKeys.size() && kSpanArgKeys[index].key.size() < length)
      ++index;
    first[length] = static_cast<std::uint8_t>(index);
  }
  return first;
}();

// A text's first eight bytes (fewer, zero-filled, for a shorter one) as a little-endian word.
constexpr std::uint64_t first_word(std::string_view text) {
  std::uint64_t word = 0;
  for (std::size_t at = 0; at < std::min<std::size_t>(text.size(), 8); ++at)
    word |= std::uint64_t{static_cast<unsigned char>(text[at])} << (8 * at);
  return word;
}

constexpr auto kSpanArgKeyWords = [] {
  std::array<std::uint64_t, kSpanArgKeys.size()> words{};
  for (std::size_t index = 0; index < kSpanArgKeys.size(); ++index)
    words[index] = first_word(kSpanArgKeys[index].key);
  return words;
}();

}  // namespace

// Every arg key of every span comes here: the known keys of its length are told apart by their
// first eight bytes, as one integer, before the whole key is compared.
SpanArgKey span_arg_key(std::string_view key) {
  if (key.size() > kLongestSpanArgKey) return SpanArgKey::kOther;
  std::uint64_t word = 0;
  std::memcpy(&word, key.data(), std::min<std::size_t>(key.size(), sizeof word));
  if constexpr (std::endian::native != std::endian::little) word = first_word(key);
  for (std::size_t index = kSpanArgKeysByLength[key.size()];
       index < kSpanArgKeysByLength[key.size() + 1]; ++index) {
    if (kSpanArgKeyWords[index] == word &&
        (key.size() <= sizeof word || kSpanArgKeys[index].key == key)) {
      return kSpanArgKeys[index].meaning;
    }
  }
  return SpanArgKey::kOther;
}

}  // namespace tscope::trace::chrome_json
