#include "chrome_json_values.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "chrome_exact_times.h"
#include "tscope/trace/time_range.h"

namespace tscope::trace::chrome_json {

std::optional<std::int64_t> as_integer(JsonValue value) {
  if (!value) return std::nullopt;
  switch (value.type()) {
    case JsonType::kInt64:
      return value.int64();
    case JsonType::kUint64: {
      const std::uint64_t number = value.uint64();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(number);
    }
    case JsonType::kDouble: {
      const double number = value.dbl();
      if (!(std::abs(number) < 9.2e18)) return std::nullopt;
      return static_cast<std::int64_t>(number);
    }
    case JsonType::kString: {
      // Kineto writes some ids ("tid": "25738") as strings.
      const std::string_view text = value.text();
      std::int64_t number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
      return number;
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> as_double(JsonValue value) {
  if (!value) return std::nullopt;
  switch (value.type()) {
    case JsonType::kInt64:
      return static_cast<double>(value.int64());
    case JsonType::kUint64:
      return static_cast<double>(value.uint64());
    case JsonType::kDouble:
      return value.dbl();
    default:
      return std::nullopt;
  }
}

std::optional<TimeNs> micros_to_ns(JsonValue value) {
  // Beyond the +-2^62 ns a trace holds, the event is skipped like any unreadable time.
  constexpr std::int64_t kLimit = kMaxAbsTimeNs / 1000;
  if (!value) return std::nullopt;
  switch (value.type()) {
    case JsonType::kInt64: {
      const std::int64_t micros = value.int64();
      if (micros > kLimit || micros < -kLimit) return std::nullopt;
      return micros * 1000;
    }
    case JsonType::kUint64: {
      const std::uint64_t micros = value.uint64();
      if (micros > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
      return static_cast<std::int64_t>(micros) * 1000;
    }
    case JsonType::kDouble: {
      // Exact to the nanosecond either way (see kExactDoubleMicros); the text costs more to read.
      if (!(std::abs(value.dbl()) < kExactDoubleMicros) && !value.text().empty()) {
        return decimal_micros_to_ns(value.text());
      }
      const double nanos = value.dbl() * 1000.0;
      if (!(std::abs(nanos) <= static_cast<double>(kMaxAbsTimeNs))) return std::nullopt;
      return std::llround(nanos);
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> event_id(JsonValue value) {
  if (!value) return std::nullopt;
  if (value.type() == JsonType::kUint64) return value.uint64();
  if (value.type() == JsonType::kString) {
    std::string_view text = value.text();
    int base = 10;
    if (text.starts_with("0x") || text.starts_with("0X")) {
      text.remove_prefix(2);
      base = 16;
    }
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number, base);
    if (error == std::errc{} && end == text.data() + text.size()) return number;
    return std::hash<std::string_view>{}(value.text());
  }
  if (const auto number = as_integer(value)) return static_cast<std::uint64_t>(*number);
  return std::nullopt;
}

std::string_view as_string(JsonValue value) {
  return value.is(JsonType::kString) ? value.text() : std::string_view{};
}

std::array<std::uint32_t, 3> dim3(JsonValue value) {
  std::array<std::uint32_t, 3> dims{1, 1, 1};
  if (!value.is(JsonType::kArray)) return dims;
  std::size_t axis = 0;
  for (const JsonValue item : JsonArray(value)) {
    if (axis == dims.size()) break;
    const auto number = as_integer(item);
    if (number && *number >= 0 && *number <= std::numeric_limits<std::uint32_t>::max()) {
      dims[axis] = static_cast<std::uint32_t>(*number);
    }
    ++axis;
  }
  return dims;
}

std::vector<std::uint64_t> id_list(JsonValue value) {
  std::vector<std::uint64_t> ids;
  if (!value.is(JsonType::kArray)) return ids;
  for (const JsonValue item : JsonArray(value)) {
    if (const auto number = as_integer(item)) ids.push_back(static_cast<std::uint64_t>(*number));
  }
  return ids;
}

std::uint64_t non_negative(const std::optional<std::int64_t>& value) {
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

}  // namespace tscope::trace::chrome_json
