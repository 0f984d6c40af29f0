#include "chrome_json_repair.h"

#include <string>
#include <string_view>

#include "tscope/trace/errors.h"

namespace tscope::trace::chrome_json {
namespace {

// A truncated file is retried at this many earlier cut points before giving up, so a file cut
// inside a deeply nested event still loads without unbounded re-parsing.
constexpr int kMaxSalvageAttempts = 32;

bool starts_with_array(std::string_view json) {
  const auto first = json.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && json[first] == '[';
}

}  // namespace

ParsedChromeJson parse_chrome_json(simdjson::dom::parser& parser, const ChromeJsonInput& input) {
  ParsedChromeJson parsed;
  const std::string& source = input.source_name();
  auto error = parser.parse(input.padded_data(), input.json().size(), false).get(parsed.root);
  if (error == simdjson::SUCCESS) return parsed;
  if (starts_with_array(input.json())) {
    // The Chrome format allows the closing ']' to be missing.
    ChromeJsonInput closed = input;
    closed.close_unterminated_array();
    error = parser.parse(closed.padded_data(), closed.json().size(), false).get(parsed.root);
    if (error == simdjson::SUCCESS) {
      parsed.repaired = std::move(closed);
      return parsed;
    }
  }
  // A file cut off mid-event: keep the events before the last complete one.
  const std::string_view json = input.json();
  const std::string_view closing = starts_with_array(json) ? "]" : "]}";
  std::size_t search_end = json.size();
  for (int attempt = 0; attempt < kMaxSalvageAttempts; ++attempt) {
    const std::size_t brace = json.rfind('}', search_end == 0 ? 0 : search_end - 1);
    if (brace == std::string_view::npos || search_end == 0) break;
    search_end = brace;
    std::string prefix(json.substr(0, brace + 1));
    prefix += closing;
    ChromeJsonInput candidate = ChromeJsonInput::from_bytes(prefix, source);
    if (parser.parse(candidate.padded_data(), candidate.json().size(), false).get(parsed.root) ==
        simdjson::SUCCESS) {
      parsed.lost_bytes = json.size() - (brace + 1);
      parsed.repaired = std::move(candidate);
      return parsed;
    }
  }
  throw FormatError(source, json.size(),
                    std::string("not valid JSON: ") + simdjson::error_message(error));
}

}  // namespace tscope::trace::chrome_json
