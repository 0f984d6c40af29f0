// Escaping and number formatting for hand-written JSON.

#include "json_text.h"

#include <fmt/format.h>

#include <cmath>

#include "tscope/trace/json_text.h"

namespace tscope::regress {

std::string json_string(std::string_view text) {
  return trace::json_quote(text);
}

std::string json_number(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : "null";
}

std::string json_string_array(const std::vector<std::string>& items) {
  std::string array = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    array += (i == 0 ? "" : ", ") + json_string(items[i]);
  return array + "]";
}

}  // namespace tscope::regress
