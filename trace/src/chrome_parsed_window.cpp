#include "chrome_parsed_window.h"

#include <cmath>

#include "chrome_json_values.h"
#include "tscope/trace/errors.h"

namespace tscope::trace::chrome_json {

void parse_event_window(ParsedEventWindow& parsed, const std::string& source_name) {
  const ChromeEventWindow& window = parsed.window;
  dom::element root;
  if (const auto error = parsed.parser.parse(window.text.data(), window.size, false).get(root);
      error != simdjson::SUCCESS) {
    throw FormatError(source_name, window.offset,
                      std::string("not valid JSON: ") + simdjson::error_message(error));
  }
  // A window is "[" + events + "]".
  parsed.events = array_of(root);
  parsed.metadata_events.clear();
  // Only each event's phase is looked up, and its time while none has needed its text yet: cheap
  // next to reading all its fields.
  bool needs_time_text = false;
  for (const dom::element element : parsed.events) {
    if (element.type() != dom::element_type::OBJECT) continue;
    const dom::object object = object_of(element);
    dom::element ts_value;
    if (!needs_time_text && object.at_key("ts").get(ts_value) == simdjson::SUCCESS &&
        ts_value.type() == dom::element_type::DOUBLE) {
      needs_time_text = !(std::abs(ts_value.get_double().value_unsafe()) < kExactDoubleMicros);
    }
    dom::element phase_value;
    if (object.at_key("ph").get(phase_value) != simdjson::SUCCESS) continue;
    if (as_string(phase_value) == "M") parsed.metadata_events.push_back(object);
  }
  parsed.time_text = needs_time_text ? ChromeEventTimeTokens::read(window.text.data(), window.size,
                                                                   window.text.size())
                                     : ChromeEventTimeTokens{};
}

}  // namespace tscope::trace::chrome_json
