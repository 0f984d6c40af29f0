// Globs are matched directly, in time linear in the name for each star; regular expressions go
// to RE2 (report/name_regex.h), linear in the name whatever the pattern.

#include "tscope/regress/name_pattern.h"

#include <fmt/format.h>

#include "tscope/regress/error.h"
#include "tscope/report/name_regex.h"

namespace tscope::regress {
namespace {

constexpr std::string_view kRegexPrefix = "re:";

// '*' matches any run of characters, '?' any one character, anything else itself. On a mismatch
// only the last star is retried one character further on, which suffices for globs and bounds the
// work by pattern length times name length (a regex translation backtracks exponentially on
// patterns with many stars).
bool glob_matches(std::string_view glob, std::string_view name) {
  std::size_t g = 0;
  std::size_t n = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_name = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == name[n])) {
      ++g;
      ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      star_name = n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++star_name;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*')
    ++g;
  return g == glob.size();
}

}  // namespace

NamePattern::NamePattern(std::string_view text) : text_(text) {
  if (!text.starts_with(kRegexPrefix)) return;
  try {
    regex_.emplace(text.substr(kRegexPrefix.size()));
  } catch (const NameRegexError& error) {
    throw RegressInputError(fmt::format("bad name pattern \"{}\": {}", text, error.what()));
  }
}

bool NamePattern::matches(std::string_view name) const {
  return regex_ ? regex_->matches(name) : glob_matches(text_, name);
}

}  // namespace tscope::regress
