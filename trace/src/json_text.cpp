#include "tscope/trace/json_text.h"

namespace tscope::trace {
namespace {

// Length of the well-formed UTF-8 sequence at the start of `text`, or 0 when it is malformed
// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t index = 2; index < length; ++index) {
    if (byte(index) < 0x80 || byte(index) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t index = 0;
  while (index < text.size()) {
    const auto c = static_cast<unsigned char>(text[index]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++index;
    } else if (c < 0x20) {
      const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(escaped, sizeof escaped);
      ++index;
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++index;
    } else if (const std::size_t length = utf8_sequence_length(text.substr(index)); length != 0) {
      out.append(text.substr(index, length));
      index += length;
    } else {
      out.append("\\ufffd");
      ++index;
    }
  }
  out.push_back('"');
}

std::string json_quote(std::string_view text) {
  std::string quoted;
  quoted.reserve(text.size() + 2);
  append_json_string(quoted, text);
  return quoted;
}

}  // namespace tscope::trace
