#pragma once
// A window of Chrome events parsed into a tape, on the reading thread; the importer's thread
// gathers each event's fields from it (read_fields).

#include "chrome_event_windows.h"
#include "chrome_json_document.h"

namespace tscope::trace::chrome_json {

struct ParsedEventWindow {
  ChromeEventWindow window;
  // Reused from window to window, so its memory is allocated once.
  ChromeJsonDocument document;
  // The window's array in the document: every element, objects or not, in order.
  JsonValue events;
};

// Parses `parsed.window` into its document; false for text that is not JSON (the document's
// error() says why).
bool parse_event_window(ParsedEventWindow& parsed);

}  // namespace tscope::trace::chrome_json
