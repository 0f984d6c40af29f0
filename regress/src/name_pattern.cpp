// Globs are translated to regular expressions so that both kinds share one matcher.

#include "tscope/regress/name_pattern.h"

#include <fmt/format.h>

#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

constexpr std::string_view kRegexPrefix = "re:";
constexpr std::size_t kMaxPatternLength = 256;

std::string glob_to_regex(std::string_view glob) {
  std::string regex;
  for (const char c : glob) {
    switch (c) {
      case '*':
        regex += ".*";
        break;
      case '?':
        regex += '.';
        break;
      case '.':
      case '+':
      case '(':
      case ')':
      case '{':
      case '}':
      case '[':
      case ']':
      case '^':
      case '$':
      case '|':
      case '\\':
        regex += '\\';
        regex += c;
        break;
      default:
        regex += c;
    }
  }
  return regex;
}

}  // namespace

NamePattern::NamePattern(std::string_view text) : text_(text) {
  // std::regex compiles and matches recursively: a long or deeply nested pattern could exhaust
  // the stack. No benchmark name pattern needs more.
  if (text.size() > kMaxPatternLength) {
    throw RegressInputError(
        fmt::format("name pattern of {} characters is longer than the limit of {}", text.size(),
                    kMaxPatternLength));
  }
  const bool is_regex = text.starts_with(kRegexPrefix);
  const std::string expression =
      is_regex ? std::string(text.substr(kRegexPrefix.size())) : glob_to_regex(text);
  try {
    regex_ = std::regex(expression, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    throw RegressInputError(fmt::format("bad name pattern \"{}\": {}", text, error.what()));
  }
}

bool NamePattern::matches(std::string_view name) const {
  return std::regex_match(name.begin(), name.end(), regex_);
}

}  // namespace tscope::regress
