#include "policy_regex.h"

#include <fmt/format.h>

#include <string>

#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

// std::regex compiles and matches recursively: a long or deeply nested pattern could exhaust the
// stack. No benchmark name pattern needs more.
constexpr std::size_t kMaxRegexLength = 256;

// libstdc++'s regex compiler reads the numbers of repeat counts ({m,n}) and back-references (\N)
// into an int without an overflow check, so a longer number there is refused before it gets
// there. Digits elsewhere are literal characters and may run on.
constexpr std::size_t kMaxRegexNumberDigits = 9;

bool has_long_number(std::string_view regex) {
  const auto digits_from = [&](std::size_t i) {
    std::size_t digits = 0;
    while (i + digits < regex.size() && regex[i + digits] >= '0' && regex[i + digits] <= '9')
      ++digits;
    return digits;
  };
  bool in_braces = false;
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '{') in_braces = true;
    if (c == '}') in_braces = false;
    const bool number_follows = c == '\\' || c == '{' || (in_braces && c == ',');
    if (number_follows && digits_from(i + 1) > kMaxRegexNumberDigits) return true;
    if (c == '\\') {
      // The escaped character is not a brace. ECMAScript's control escape \cX takes one more
      // character, whatever it is: in "\c\\1" the compiler reads \c\ and then the reference \1.
      i += i + 1 < regex.size() && regex[i + 1] == 'c' ? 2 : 1;
    }
  }
  return false;
}

}  // namespace

std::regex compile_policy_regex(std::string_view regex, std::string_view label) {
  if (regex.size() > kMaxRegexLength) {
    throw RegressInputError(fmt::format("{}: {} characters, longer than the limit of {}", label,
                                        regex.size(), kMaxRegexLength));
  }
  if (has_long_number(regex)) {
    throw RegressInputError(
        fmt::format("{}: a number of more than {} digits", label, kMaxRegexNumberDigits));
  }
  try {
    return std::regex(std::string(regex), std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    throw RegressInputError(fmt::format("{}: {}", label, error.what()));
  }
}

}  // namespace tscope::regress
