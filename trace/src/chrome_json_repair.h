#pragma once
// Parses a Chrome trace's JSON, repairing what the format or a crashed writer leaves: a bare
// array without its closing ']', and a file cut off inside an event, which keeps the events
// before the last whole one and counts the bytes lost.

#include <simdjson.h>

#include <cstdint>
#include <optional>

#include "tscope/trace/chrome_json_input.h"

namespace tscope::trace::chrome_json {

struct ParsedChromeJson {
  std::optional<ChromeJsonInput> repaired;  // the text that parsed, when not the input's own
  simdjson::dom::element root;
  std::uint64_t lost_bytes = 0;
};

// Throws FormatError (with the input's size as the offset) when no repair makes it parse.
ParsedChromeJson parse_chrome_json(simdjson::dom::parser& parser, const ChromeJsonInput& input);

}  // namespace tscope::trace::chrome_json
