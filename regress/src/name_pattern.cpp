// Globs are matched directly, in time linear in the name for each star; regular expressions go
// to std::regex.

#include "tscope/regress/name_pattern.h"

#include <fmt/format.h>

#include "policy_regex.h"
#include "tscope/regress/error.h"

namespace tscope::regress {
namespace {

constexpr std::string_view kRegexPrefix = "re:";
// std::regex compiles and matches recursively: a long or deeply nested pattern could exhaust the
// stack. No benchmark name pattern needs more.
constexpr std::size_t kMaxPatternLength = 256;

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
  if (text.size() > kMaxPatternLength) {
    throw RegressInputError(
        fmt::format("name pattern of {} characters is longer than the limit of {}", text.size(),
                    kMaxPatternLength));
  }
  if (!text.starts_with(kRegexPrefix)) return;
  regex_ = compile_policy_regex(text.substr(kRegexPrefix.size()),
                                fmt::format("bad name pattern \"{}\"", text));
  is_regex_ = true;
}

bool NamePattern::matches(std::string_view name) const {
  if (!is_regex_) return glob_matches(text_, name);
  return std::regex_match(name.begin(), name.end(), regex_);
}

}  // namespace tscope::regress
