#pragma once
// A benchmark name pattern from the command line or a policy file: a shell glob by default
// ("BM_Matmul/*"), or an ECMAScript regular expression when written as "re:PATTERN". A regular
// expression runs as written: std::regex backtracks, so one like "re:(a*)*b" can take time
// exponential in the name's length; globs cannot.

#include <regex>
#include <string>
#include <string_view>

namespace tscope::regress {

class NamePattern {
 public:
  // Throws RegressInputError when a regular expression does not compile or the pattern is longer
  // than 256 characters.
  explicit NamePattern(std::string_view text);

  // The whole name must match, for globs and regular expressions alike.
  bool matches(std::string_view name) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool is_regex_ = false;
  std::regex regex_;  // for "re:" patterns only
};

}  // namespace tscope::regress
