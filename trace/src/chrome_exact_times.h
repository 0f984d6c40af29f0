#pragma once
// The text of each event's "ts" and "dur" as written in the JSON, for times a double cannot hold
// to the nanosecond: Kineto writes microseconds since the epoch with nanosecond decimals
// (1.7e15 µs), whose nanoseconds need 61 bits where a double keeps 53. simdjson's DOM keeps only
// the double, so these tokens come from one on-demand pass over the same buffer.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "tscope/trace/records.h"

namespace tscope::trace {

// A JSON number of microseconds as integer nanoseconds, exact to the nanosecond (digits below it
// are rounded half away from zero, beyond the 19th significant digit dropped); nullopt for text
// that is not a JSON number or a value outside int64 nanoseconds.
std::optional<TimeNs> decimal_micros_to_ns(std::string_view number);

class ChromeEventTimeTokens {
 public:
  // Reads the tokens of every element of the top-level array, or of the "traceEvents" array of the
  // top-level object, in order. `json` must be followed by simdjson's padding within `capacity`.
  // A document the on-demand parser rejects yields no tokens (callers fall back to the doubles).
  static ChromeEventTimeTokens read(const char* json, std::size_t size, std::size_t capacity);

  // Empty when the event has no such member, or it is not a number.
  std::string_view ts(std::size_t event) const { return event < ts_.size() ? ts_[event] : ""; }
  std::string_view dur(std::size_t event) const { return event < dur_.size() ? dur_[event] : ""; }

 private:
  std::vector<std::string_view> ts_;
  std::vector<std::string_view> dur_;
};

}  // namespace tscope::trace
