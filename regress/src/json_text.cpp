// Escaping and number formatting for hand-written JSON.

#include "json_text.h"

#include <cmath>

#include <fmt/format.h>

namespace tscope::regress {

std::string json_string(std::string_view text) {
  std::string quoted = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': quoted += "\\\""; break;
      case '\\': quoted += "\\\\"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      case '\r': quoted += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          quoted += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

std::string json_number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : "null"; }

std::string json_string_array(const std::vector<std::string>& items) {
  std::string array = "[";
  for (std::size_t i = 0; i < items.size(); ++i) array += (i == 0 ? "" : ", ") + json_string(items[i]);
  return array + "]";
}

}  // namespace tscope::regress
