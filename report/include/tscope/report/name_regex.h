#pragma once
// The regular expressions users write to pick names: `analyze --steps`, a policy file's "re:"
// patterns and `normalize` rules, `bench ratio`'s pairing. One engine serves them all: RE2, whose
// syntax is close to ECMAScript's but has no back-references or lookaround (and reads "\123" as an
// octal character code, "\pL" as a Unicode class). It matches in time linear in the name whatever
// the pattern, so no pattern ("(a+)+$" on a long name, say) can hang a command, and it compiles
// within a bounded memory, refusing a pattern too large for it with a reason. Like the unit
// formatters, it sits in namespace tscope, below every layer that takes a pattern.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace tscope {

// A pattern that does not compile; what() is RE2's reason, as in "missing ): BM_(Add".
class NameRegexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A compiled pattern. Copies share it; matching is safe from several threads at once.
class NameRegex {
 public:
  // Throws NameRegexError when `pattern` does not compile (bad syntax, invalid UTF-8, a program
  // over RE2's memory budget).
  explicit NameRegex(std::string_view pattern);

  bool found_in(std::string_view name) const;  // somewhere in `name`
  bool matches(std::string_view name) const;   // the whole of `name`

  // When the whole of `name` matches, `replacement` with each "$N" (one digit) replaced by the
  // text of group N ($0 the whole name) and each "$$" by "$"; other characters are copied.
  std::optional<std::string> rewrite(std::string_view name, std::string_view replacement) const;

  // Throws NameRegexError when `replacement` names a group the pattern does not have.
  void check_replacement(std::string_view replacement) const;

  // A pattern matching exactly `text`, every character it holds taken literally.
  static std::string exactly(std::string_view text);

 private:
  std::shared_ptr<const re2::RE2> regex_;
};

}  // namespace tscope
