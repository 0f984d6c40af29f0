#pragma once
// Conversions of JSON values as the Chrome JSON importer reads them: integers that may be written
// as doubles or numeric strings, microsecond times to integer nanoseconds, flow and async ids,
// launch dimensions and id lists, and the enum names our writer uses. Each takes a missing value
// (a null view) as it takes a value of the wrong type.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "chrome_json_tape.h"
#include "tscope/trace/event_kinds.h"
#include "tscope/trace/records.h"

namespace tscope::trace::chrome_json {

// Integers, whole doubles and numeric strings ("tid": "25738" in Kineto); nullopt beyond int64.
std::optional<std::int64_t> as_integer(JsonValue value);
std::optional<double> as_double(JsonValue value);
// The text of a string value, empty for any other type.
std::string_view as_string(JsonValue value);
std::uint64_t non_negative(const std::optional<std::int64_t>& value);

// Below 2^32 µs (about 72 minutes) a double's spacing is under a thousandth of a nanosecond, so
// rounding it gives the written nanoseconds; times beyond that are read from their text.
inline constexpr double kExactDoubleMicros = 4294967296.0;

// Chrome times are microseconds, integral or with nanosecond decimals; a double beyond
// kExactDoubleMicros is read from its text when the value has it (see JsonNode::text).
std::optional<TimeNs> micros_to_ns(JsonValue value);

// Flow and async ids: numbers, or strings such as "0xaf7df77f7a3195dd".
std::optional<std::uint64_t> event_id(JsonValue value);

// A CUDA grid or block "[x, y, z]"; missing axes are 1.
std::array<std::uint32_t, 3> dim3(JsonValue value);
std::vector<std::uint64_t> id_list(JsonValue value);

// The enum value whose to_string() is `text`.
template <typename Enum, int kCount>
std::optional<Enum> enum_from_string(std::string_view text) {
  for (int index = 0; index < kCount; ++index) {
    if (to_string(static_cast<Enum>(index)) == text) return static_cast<Enum>(index);
  }
  return std::nullopt;
}

}  // namespace tscope::trace::chrome_json
