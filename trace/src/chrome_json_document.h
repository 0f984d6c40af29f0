#pragma once
// A JSON text of a Chrome trace parsed into a JsonTape: by scan_json where it takes the text, else
// by simdjson's DOM, converted (whose strings the tape then views, so the parser stays with the
// tape), which also reports what is not JSON. Reused from text to text, so its memory is too.

#include <simdjson.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "chrome_json_tape.h"

namespace tscope::trace::chrome_json {

class ChromeJsonDocument {
 public:
  // Parses `size` bytes at `text`, which simdjson's padding of zero bytes follows. Returns the
  // root value, or a null view for text that is not JSON (error() says why). The values stay
  // valid until the next parse, as long as the text does.
  JsonValue parse(const char* text, std::size_t size);
  // The same for a text without padding, which is copied first.
  JsonValue parse_copy(std::string_view text);

  // Whether the last parse went through simdjson's DOM: its numbers keep no text.
  bool used_dom() const { return used_dom_; }
  const char* error() const { return error_; }
  JsonTape& tape() { return tape_; }

 private:
  JsonTape tape_;
  simdjson::dom::parser parser_;
  std::string padded_;
  bool used_dom_ = false;
  const char* error_ = "";
};

}  // namespace tscope::trace::chrome_json
