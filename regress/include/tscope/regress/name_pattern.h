#pragma once
// A benchmark name pattern from the command line or a policy file: a shell glob by default
// ("BM_Matmul/*"), or an ECMAScript regular expression when written as "re:PATTERN".

#include <regex>
#include <string>
#include <string_view>

namespace tscope::regress {

class NamePattern {
 public:
  // Throws RegressInputError when a regular expression does not compile.
  explicit NamePattern(std::string_view text);

  // The whole name must match, for globs and regular expressions alike.
  bool matches(std::string_view name) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::regex regex_;
};

}  // namespace tscope::regress
