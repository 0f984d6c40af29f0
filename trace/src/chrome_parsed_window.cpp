#include "chrome_parsed_window.h"

#include <simdjson.h>

#include <cmath>

#include "chrome_exact_times.h"
#include "chrome_json_values.h"

namespace tscope::trace::chrome_json {
namespace {

// The value of an event's last member named `key` (read_fields keeps the last of repeated keys).
JsonValue last_member(JsonValue event, std::string_view key) {
  JsonValue found;
  for (const JsonField field : JsonObject(event)) {
    if (field.key == key) found = field.value;
  }
  return found;
}

// A document simdjson's DOM parsed keeps only the doubles of its numbers; where a time is beyond
// a double's nanoseconds, the numbers of "ts" and "dur" as written are read again.
void give_times_their_text(ParsedEventWindow& parsed) {
  const auto beyond_double = [](JsonValue time) {
    return time.is(JsonType::kDouble) && !(std::abs(time.dbl()) < kExactDoubleMicros);
  };
  bool needs_text = false;
  for (const JsonValue event : JsonArray(parsed.events)) {
    needs_text =
        needs_text || (event.is(JsonType::kObject) && beyond_double(last_member(event, "ts")));
  }
  if (!needs_text) return;
  const ChromeEventWindow& window = parsed.window;
  const ChromeEventTimeTokens tokens = ChromeEventTimeTokens::read(
      window.text.data(), window.size, window.size + simdjson::SIMDJSON_PADDING);
  JsonTape& tape = parsed.document.tape();
  const JsonNode* const first = tape.root().node();
  std::size_t index = 0;
  for (const JsonValue event : JsonArray(parsed.events)) {
    const std::size_t event_index = index++;
    if (!event.is(JsonType::kObject)) continue;
    if (const JsonValue ts = last_member(event, "ts")) {
      tape.set_text(static_cast<std::size_t>(ts.node() - first), tokens.ts(event_index));
    }
    if (const JsonValue dur = last_member(event, "dur")) {
      tape.set_text(static_cast<std::size_t>(dur.node() - first), tokens.dur(event_index));
    }
  }
}

}  // namespace

bool parse_event_window(ParsedEventWindow& parsed) {
  const ChromeEventWindow& window = parsed.window;
  const JsonValue root = parsed.document.parse(window.text.data(), window.size);
  if (!root) return false;
  // A window is "[" + events + "]".
  parsed.events = root;
  if (parsed.document.used_dom()) give_times_their_text(parsed);
  return true;
}

}  // namespace tscope::trace::chrome_json
