#include "chrome_exact_times.h"

#include <simdjson.h>

#include <cstdint>
#include <limits>

#include "tscope/trace/time_range.h"

namespace tscope::trace {
namespace {

namespace ondemand = simdjson::ondemand;

// An int64 of nanoseconds has at most 19 significant digits, and 19 digits always fit a uint64;
// further fraction digits lie below the nanosecond and are dropped.
constexpr int kMaxMantissaDigits = 19;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trimmed(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' ||
                            token.back() == '\r')) {
    token.remove_suffix(1);
  }
  return token;
}

std::string_view number_token(ondemand::value value) {
  ondemand::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS || type != ondemand::json_type::number) return {};
  return trimmed(value.raw_json_token());
}

}  // namespace

std::optional<TimeNs> decimal_micros_to_ns(std::string_view number) {
  std::size_t at = 0;
  const bool negative = at < number.size() && number[at] == '-';
  if (negative) ++at;
  std::uint64_t mantissa = 0;
  int digits = 0;
  int exponent = 3;  // microseconds to nanoseconds
  bool any_digit = false;
  const auto take_digits = [&](bool fraction) {
    while (at < number.size() && is_digit(number[at])) {
      any_digit = true;
      if (digits < kMaxMantissaDigits) {
        mantissa = mantissa * 10 + static_cast<unsigned>(number[at] - '0');
        if (mantissa != 0) ++digits;
        if (fraction) --exponent;
      } else if (!fraction) {
        ++exponent;
      }
      ++at;
    }
  };
  take_digits(false);
  if (!any_digit) return std::nullopt;
  if (at < number.size() && number[at] == '.') {
    ++at;
    any_digit = false;
    take_digits(true);
    if (!any_digit) return std::nullopt;
  }
  if (at < number.size() && (number[at] == 'e' || number[at] == 'E')) {
    ++at;
    const bool negative_exponent = at < number.size() && number[at] == '-';
    if (at < number.size() && (number[at] == '-' || number[at] == '+')) ++at;
    int written = 0;
    bool exponent_digit = false;
    while (at < number.size() && is_digit(number[at])) {
      exponent_digit = true;
      if (written < 10000) written = written * 10 + (number[at] - '0');
      ++at;
    }
    if (!exponent_digit) return std::nullopt;
    exponent += negative_exponent ? -written : written;
  }
  if (at != number.size()) return std::nullopt;

  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max());
  if (mantissa != 0) {
    for (; exponent > 0; --exponent) {
      if (mantissa > kMax / 10) return std::nullopt;
      mantissa *= 10;
    }
    for (; exponent < 0 && mantissa != 0; ++exponent) {
      const std::uint64_t remainder = mantissa % 10;
      mantissa /= 10;
      // Round half away from zero on the last digit dropped, as llround does for the doubles.
      if (exponent == -1 && remainder >= 5) ++mantissa;
    }
  }
  if (mantissa > static_cast<std::uint64_t>(kMaxAbsTimeNs)) return std::nullopt;
  const auto magnitude = static_cast<TimeNs>(mantissa);
  return negative ? -magnitude : magnitude;
}

ChromeEventTimeTokens ChromeEventTimeTokens::read(const char* json, std::size_t size,
                                                  std::size_t capacity) {
  ChromeEventTimeTokens tokens;
  ondemand::parser parser;
  ondemand::document document;
  if (parser.iterate(json, size, capacity).get(document) != simdjson::SUCCESS) return tokens;
  ondemand::array events;
  ondemand::json_type root_type;
  if (document.type().get(root_type) != simdjson::SUCCESS) return tokens;
  if (root_type == ondemand::json_type::array) {
    if (document.get_array().get(events) != simdjson::SUCCESS) return tokens;
  } else {
    ondemand::object root;
    if (document.get_object().get(root) != simdjson::SUCCESS ||
        root.find_field_unordered("traceEvents").get_array().get(events) != simdjson::SUCCESS) {
      return tokens;
    }
  }
  for (auto element : events) {
    std::string_view ts;
    std::string_view dur;
    ondemand::object event;
    if (element.get_object().get(event) == simdjson::SUCCESS) {
      for (auto field : event) {
        std::string_view key;
        ondemand::value value;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS ||
            field.value().get(value) != simdjson::SUCCESS) {
          return {};
        }
        // The DOM reader keeps the last of repeated keys; so does this.
        if (key == "ts") {
          ts = number_token(value);
        } else if (key == "dur") {
          dur = number_token(value);
        }
      }
    }
    tokens.ts_.push_back(ts);
    tokens.dur_.push_back(dur);
  }
  return tokens;
}

}  // namespace tscope::trace
