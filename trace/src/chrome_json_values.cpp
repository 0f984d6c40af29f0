#include "chrome_json_values.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

#include "chrome_exact_times.h"
#include "tscope/trace/time_range.h"

namespace tscope::trace::chrome_json {

dom::array array_of(dom::element value) {
  return value.get_array().value_unsafe();
}
dom::object object_of(dom::element value) {
  return value.get_object().value_unsafe();
}

std::optional<std::int64_t> as_integer(dom::element value) {
  switch (value.type()) {
    case dom::element_type::INT64:
      return value.get_int64().value_unsafe();
    case dom::element_type::UINT64: {
      const std::uint64_t number = value.get_uint64().value_unsafe();
      if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(number);
    }
    case dom::element_type::DOUBLE: {
      const double number = value.get_double().value_unsafe();
      if (!(std::abs(number) < 9.2e18)) return std::nullopt;
      return static_cast<std::int64_t>(number);
    }
    case dom::element_type::STRING: {
      // Kineto writes some ids ("tid": "25738") as strings.
      const std::string_view text = value.get_string().value_unsafe();
      std::int64_t number = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
      return number;
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> as_double(dom::element value) {
  switch (value.type()) {
    case dom::element_type::INT64:
      return static_cast<double>(value.get_int64().value_unsafe());
    case dom::element_type::UINT64:
      return static_cast<double>(value.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE:
      return value.get_double().value_unsafe();
    default:
      return std::nullopt;
  }
}

std::optional<TimeNs> micros_to_ns(dom::element value, std::string_view text) {
  // Beyond the +-2^62 ns a trace holds, the event is skipped like any unreadable time.
  constexpr std::int64_t kLimit = kMaxAbsTimeNs / 1000;
  switch (value.type()) {
    case dom::element_type::INT64: {
      const std::int64_t micros = value.get_int64().value_unsafe();
      if (micros > kLimit || micros < -kLimit) return std::nullopt;
      return micros * 1000;
    }
    case dom::element_type::UINT64: {
      const std::uint64_t micros = value.get_uint64().value_unsafe();
      if (micros > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
      return static_cast<std::int64_t>(micros) * 1000;
    }
    case dom::element_type::DOUBLE: {
      if (!text.empty()) return decimal_micros_to_ns(text);
      const double nanos = value.get_double().value_unsafe() * 1000.0;
      if (!(std::abs(nanos) <= static_cast<double>(kMaxAbsTimeNs))) return std::nullopt;
      return std::llround(nanos);
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> event_id(dom::element value) {
  if (value.type() == dom::element_type::UINT64) return value.get_uint64().value_unsafe();
  if (value.type() == dom::element_type::STRING) {
    std::string_view text = value.get_string().value_unsafe();
    int base = 10;
    if (text.starts_with("0x") || text.starts_with("0X")) {
      text.remove_prefix(2);
      base = 16;
    }
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number, base);
    if (error == std::errc{} && end == text.data() + text.size()) return number;
    return std::hash<std::string_view>{}(value.get_string().value_unsafe());
  }
  if (const auto number = as_integer(value)) return static_cast<std::uint64_t>(*number);
  return std::nullopt;
}

std::string_view as_string(dom::element value) {
  return value.type() == dom::element_type::STRING ? value.get_string().value_unsafe()
                                                   : std::string_view{};
}

std::array<std::uint32_t, 3> dim3(dom::element value) {
  std::array<std::uint32_t, 3> dims{1, 1, 1};
  if (value.type() != dom::element_type::ARRAY) return dims;
  std::size_t axis = 0;
  for (const dom::element item : array_of(value)) {
    if (axis == dims.size()) break;
    const auto number = as_integer(item);
    if (number && *number >= 0 && *number <= std::numeric_limits<std::uint32_t>::max()) {
      dims[axis] = static_cast<std::uint32_t>(*number);
    }
    ++axis;
  }
  return dims;
}

std::vector<std::uint64_t> id_list(dom::element value) {
  std::vector<std::uint64_t> ids;
  if (value.type() != dom::element_type::ARRAY) return ids;
  for (const dom::element item : array_of(value)) {
    if (const auto number = as_integer(item)) ids.push_back(static_cast<std::uint64_t>(*number));
  }
  return ids;
}

std::uint64_t non_negative(const std::optional<std::int64_t>& value) {
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

}  // namespace tscope::trace::chrome_json
