#pragma once
// A window of Chrome events parsed into simdjson's DOM, with what the importer must know before it
// reads the window's events one by one: the M (metadata) events, which name the rows the others
// create, and the numbers of "ts" and "dur" as written when a time is beyond a double's
// nanoseconds. Preparing it needs nothing of the model, so it runs on the reading thread.

#include <simdjson.h>

#include <string>
#include <vector>

#include "chrome_event_windows.h"
#include "chrome_exact_times.h"

namespace tscope::trace::chrome_json {

struct ParsedEventWindow {
  ChromeEventWindow window;
  // Reused from window to window, so its memory is allocated once.
  simdjson::dom::parser parser;
  // Views of the parser's document.
  simdjson::dom::array events;
  std::vector<simdjson::dom::object> metadata_events;
  ChromeEventTimeTokens time_text;
};

// Parses `parsed.window` and fills the rest of `parsed`. Throws FormatError (source, the window's
// offset) for text that is not JSON.
void parse_event_window(ParsedEventWindow& parsed, const std::string& source_name);

}  // namespace tscope::trace::chrome_json
