#pragma once
// A benchmark name pattern from the command line or a policy file: a shell glob by default
// ("BM_Matmul/*"), or a regular expression (report/name_regex.h) when written as "re:PATTERN".
// Both match in time bounded by the pattern's and the name's lengths.

#include <optional>
#include <string>
#include <string_view>

#include "tscope/report/name_regex.h"

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
  std::optional<NameRegex> regex_;  // for "re:" patterns only
};

}  // namespace tscope::regress
