#include "chrome_json_scanner.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tscope::trace::chrome_json {
namespace {

// Deeper text goes to simdjson, which takes up to 1024 levels.
constexpr int kMaxDepth = 256;

// Integers a double holds exactly go up to 2^53; a decimal's digits beyond it leave the fast path.
constexpr std::uint64_t kFastMantissaLimit = std::uint64_t{1} << 53;
constexpr std::uint64_t kNoFastPath = std::numeric_limits<std::uint64_t>::max();
// 10^0 to 10^22, each exact in a double.
constexpr std::array<double, 23> kExactPowersOfTen = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

constexpr std::array<bool, 256> whitespace_table() {
  std::array<bool, 256> table{};
  table[' '] = table['\t'] = table['\n'] = table['\r'] = true;
  return table;
}
constexpr std::array<bool, 256> kWhitespace = whitespace_table();

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Eight digits at once, as simdjson reads them: Kineto's microsecond times have sixteen. False
// (and `value` untouched) unless all eight bytes at `at` are digits.
bool eight_digits(const char* at, std::uint64_t& value) {
  std::uint64_t chunk = 0;
  std::memcpy(&chunk, at, sizeof chunk);
  if constexpr (std::endian::native != std::endian::little) return false;
  // Each byte is 0x30..0x39 when its high nibble is 3 and adding 6 keeps it there.
  if (((chunk & 0xF0F0F0F0F0F0F0F0) | (((chunk + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) !=
      0x3333333333333333) {
    return false;
  }
  chunk -= 0x3030303030303030;
  chunk = chunk * 10 + (chunk >> 8);
  value = (((chunk & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
           (((chunk >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
          32;
  return true;
}

// The first byte from `at` that ends a string's plain run: a quote, a backslash or a control
// character (which JSON forbids unescaped; the zero padding after the text is one too).
const char* find_string_stop(const char* at) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1f);
  for (;;) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // Unsigned: a byte is a control character when max(byte, 0x1f) is 0x1f.
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(block, last_control), last_control);
    const int stops = _mm_movemask_epi8(_mm_or_si128(
        control, _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash))));
    if (stops != 0) return at + std::countr_zero(static_cast<unsigned>(stops));
    at += 16;
  }
#else
  while (*at != '"' && *at != '\\' && static_cast<unsigned char>(*at) >= 0x20)
    ++at;
  return at;
#endif
}

// Each step takes the position to read at and returns the position after what it read, or null
// where the text is declined: the position stays in a register, where a member would be reloaded
// after every store to the tape.
class Scanner {
 public:
  Scanner(const char* end, JsonTape& tape) : end_(end), tape_(tape) {}

  bool document(const char* at) {
    at = value(skip_whitespace(at), 0);
    return at != nullptr && skip_whitespace(at) == end_;
  }

 private:
  static const char* skip_whitespace(const char* at) {
    if (!kWhitespace[static_cast<unsigned char>(*at)]) return at;
#if defined(__SSE2__)
    // Indented writers put runs of spaces before every key: skip them sixteen bytes at a time.
    for (;;) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      const __m128i space = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8(' ')),
                                                      _mm_cmpeq_epi8(block, _mm_set1_epi8('\n'))),
                                         _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('\t')),
                                                      _mm_cmpeq_epi8(block, _mm_set1_epi8('\r'))));
      const auto others = static_cast<unsigned>(~_mm_movemask_epi8(space)) & 0xffffu;
      if (others != 0) return at + std::countr_zero(others);
      at += 16;
    }
#else
    while (kWhitespace[static_cast<unsigned char>(*at)])
      ++at;
    return at;
#endif
  }

  const char* value(const char* at, int depth) {
    if (at >= end_) return nullptr;
    switch (*at) {
      case '{':
        return object(at, depth + 1);
      case '[':
        return array(at, depth + 1);
      case '"': {
        std::string_view text;
        at = string(at, text);
        if (at != nullptr) tape_.append(JsonType::kString, 0, text);
        return at;
      }
      case 't':
        return literal(at, "true", JsonType::kBool, 1);
      case 'f':
        return literal(at, "false", JsonType::kBool, 0);
      case 'n':
        return literal(at, "null", JsonType::kNull, 0);
      default:
        return number(at);
    }
  }

  const char* literal(const char* at, std::string_view word, JsonType type, std::uint64_t payload) {
    // The padding makes the bytes readable; a zero byte there never matches.
    if (std::memcmp(at, word.data(), word.size()) != 0) return nullptr;
    tape_.append(type, payload);
    return at + word.size();
  }

  // The items of a container from just after its opening bracket to its `close`, each read by
  // `item` (which returns the position after it, or null); returns the position after `close`.
  template <typename Item>
  static const char* items(const char* at, char close, Item&& item) {
    at = skip_whitespace(at);
    if (*at == close) return at + 1;
    for (;;) {
      at = item(at);
      if (at == nullptr) return nullptr;
      at = skip_whitespace(at);
      if (*at == close) return at + 1;
      if (*at != ',') return nullptr;
      at = skip_whitespace(at + 1);
    }
  }

  const char* object(const char* const open, int depth) {
    if (depth > kMaxDepth) return nullptr;
    const std::size_t index = tape_.append(JsonType::kObject);
    const char* const end = items(open + 1, '}', [&](const char* at) -> const char* {
      if (*at != '"') return nullptr;
      std::string_view key;
      at = string(at, key);
      if (at == nullptr) return nullptr;
      tape_.append(JsonType::kString, 0, key);
      at = skip_whitespace(at);
      if (*at != ':') return nullptr;
      return value(skip_whitespace(at + 1), depth);
    });
    if (end == nullptr) return nullptr;
    tape_.close(index);
    tape_.set_text(index, std::string_view(open, static_cast<std::size_t>(end - open)));
    return end;
  }

  const char* array(const char* const open, int depth) {
    if (depth > kMaxDepth) return nullptr;
    const std::size_t index = tape_.append(JsonType::kArray);
    const char* const end = items(open + 1, ']', [&](const char* at) { return value(at, depth); });
    if (end != nullptr) tape_.close(index);
    return end;
  }

  // At the opening quote; returns the position after the closing one.
  const char* string(const char* at, std::string_view& text) {
    const char* const start = at + 1;
    at = find_string_stop(start);
    if (*at == '"') {
      text = std::string_view(start, static_cast<std::size_t>(at - start));
      return at + 1;
    }
    if (*at != '\\') return nullptr;
    return unescape(start, at, text);
  }

  // The string from `start` holds an escape at `at`: its text is rebuilt in the tape's buffer.
  const char* unescape(const char* start, const char* at, std::string_view& text) {
    char* const out = tape_.unescape_space();
    std::size_t size = 0;
    const char* run = start;
    for (;;) {
      std::memcpy(out + size, run, static_cast<std::size_t>(at - run));
      size += static_cast<std::size_t>(at - run);
      if (*at == '"') break;
      if (*at != '\\') return nullptr;
      char unescaped = 0;
      switch (at[1]) {
        case '"':
        case '\\':
        case '/':
          unescaped = at[1];
          break;
        case 'b':
          unescaped = '\b';
          break;
        case 'f':
          unescaped = '\f';
          break;
        case 'n':
          unescaped = '\n';
          break;
        case 'r':
          unescaped = '\r';
          break;
        case 't':
          unescaped = '\t';
          break;
        default:
          return nullptr;  // \u escapes (and invalid ones) are simdjson's
      }
      out[size++] = unescaped;
      run = at + 2;
      at = find_string_stop(run);
    }
    text = tape_.commit_unescaped(size);
    return at + 1;
  }

  // JSON's number grammar, typed as simdjson types it: an integer is an int64, else a uint64 when
  // positive and below 2^64; a fraction or exponent makes a double, rounded correctly (as
  // from_chars does too). What simdjson rejects (beyond those ranges) is declined.
  const char* number(const char* at) {
    const char* const start = at;
    const bool negative = *at == '-';
    if (negative) ++at;
    const char* const digits = at;
    std::uint64_t magnitude = 0;
    // Digits past the 19th wrap here; such numbers are read again below.
    for (std::uint64_t eight = 0; eight_digits(at, eight); at += 8)
      magnitude = magnitude * 100000000 + eight;
    while (is_digit(*at)) {
      magnitude = magnitude * 10 + static_cast<unsigned>(*at - '0');
      ++at;
    }
    const auto count = static_cast<std::size_t>(at - digits);
    if (count == 0 || (*digits == '0' && count > 1)) return nullptr;
    if (*at == '.' || *at == 'e' || *at == 'E') {
      return fraction(start, at, count <= 19 ? magnitude : kNoFastPath, negative);
    }
    const std::string_view token(start, static_cast<std::size_t>(at - start));
    // Up to 19 digits fit a uint64; a 20-digit one may not.
    if (count > 19) {
      if (count > 20 || negative) return nullptr;
      magnitude = 0;
      for (const char* digit = digits; digit != at; ++digit) {
        if (__builtin_mul_overflow(magnitude, 10u, &magnitude) ||
            __builtin_add_overflow(magnitude, static_cast<unsigned>(*digit - '0'), &magnitude)) {
          return nullptr;
        }
      }
    }
    constexpr auto kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (negative) {
      if (magnitude > kInt64Max + 1) return nullptr;
      tape_.append(JsonType::kInt64, 0 - magnitude, token);
    } else {
      tape_.append(magnitude > kInt64Max ? JsonType::kUint64 : JsonType::kInt64, magnitude, token);
    }
    return at;
  }

  // At the '.', 'e' or 'E' after the integer digits of the number at `start`, whose value is
  // `integer` (kNoFastPath where it has too many digits to be exact).
  const char* fraction(const char* start, const char* at, std::uint64_t integer, bool negative) {
    std::uint64_t mantissa = integer;
    std::size_t fraction_digits = 0;
    if (*at == '.') {
      ++at;
      const char* const first = at;
      for (; is_digit(*at); ++at) {
        if (mantissa < kFastMantissaLimit) {
          mantissa = mantissa * 10 + static_cast<unsigned>(*at - '0');
        } else {
          mantissa = kNoFastPath;
        }
      }
      fraction_digits = static_cast<std::size_t>(at - first);
      if (fraction_digits == 0) return nullptr;
    }
    bool exponent = false;
    if (*at == 'e' || *at == 'E') {
      exponent = true;
      ++at;
      if (*at == '+' || *at == '-') ++at;
      const char* const first = at;
      while (is_digit(*at))
        ++at;
      if (at == first) return nullptr;
    }
    double value = 0;
    // Clinger's fast path, for the decimals trace writers print ("ts": 4458676522690.655): an
    // integer below 2^53 over a power of ten a double holds exactly is one correctly rounded
    // division, the value from_chars gives, at a fraction of its cost.
    if (!exponent && mantissa <= kFastMantissaLimit && fraction_digits < kExactPowersOfTen.size()) {
      value = static_cast<double>(mantissa) / kExactPowersOfTen[fraction_digits];
      if (negative) value = -value;
    } else {
      const auto [end, error] = std::from_chars(start, at, value);
      // Out of range (an infinity simdjson refuses, or an underflow it would take) goes to
      // simdjson.
      if (error != std::errc{} || end != at) return nullptr;
    }
    tape_.append(JsonType::kDouble, std::bit_cast<std::uint64_t>(value),
                 std::string_view(start, static_cast<std::size_t>(at - start)));
    return at;
  }

  const char* const end_;
  JsonTape& tape_;
};

}  // namespace

bool scan_json(const char* text, std::size_t size, JsonTape& tape) {
  tape.clear(size);
  return Scanner(text + size, tape).document(text);
}

}  // namespace tscope::trace::chrome_json
