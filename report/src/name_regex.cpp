#include "tscope/report/name_regex.h"

#include <re2/re2.h>

#include <vector>

namespace tscope {
namespace {

re2::StringPiece piece(std::string_view text) {
  return {text.data(), text.size()};
}

// Calls `group(N)` for each "$N" of `replacement` and `literal(c)` for every other character ("$$"
// is one '$', and a '$' before anything but a digit or '$' stands for itself).
template <typename Group, typename Literal>
void scan_replacement(std::string_view replacement, Group group, Literal literal) {
  for (std::size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    const char next = i + 1 < replacement.size() ? replacement[i + 1] : '\0';
    if (c == '$' && next >= '0' && next <= '9') {
      group(static_cast<std::size_t>(next - '0'));
      ++i;
    } else {
      literal(c);
      i += c == '$' && next == '$';
    }
  }
}

}  // namespace

NameRegex::NameRegex(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error reaches the user once, through the caller's message
  auto regex = std::make_shared<const RE2>(piece(pattern), options);
  if (!regex->ok()) throw NameRegexError(regex->error());
  regex_ = std::move(regex);
}

bool NameRegex::found_in(std::string_view name) const {
  return RE2::PartialMatch(piece(name), *regex_);
}

bool NameRegex::matches(std::string_view name) const {
  return RE2::FullMatch(piece(name), *regex_);
}

std::optional<std::string> NameRegex::rewrite(std::string_view name,
                                              std::string_view replacement) const {
  // Group 0 is the whole match, then one per capturing group; a group that took no part in the
  // match is empty.
  std::vector<re2::StringPiece> groups(
      static_cast<std::size_t>(regex_->NumberOfCapturingGroups() + 1));
  if (!regex_->Match(piece(name), 0, name.size(), RE2::ANCHOR_BOTH, groups.data(),
                     static_cast<int>(groups.size()))) {
    return std::nullopt;
  }
  std::string result;
  scan_replacement(
      replacement,
      [&](std::size_t group) {
        if (group < groups.size()) result.append(groups[group].data(), groups[group].size());
      },
      [&](char c) { result += c; });
  return result;
}

void NameRegex::check_replacement(std::string_view replacement) const {
  const auto groups = static_cast<std::size_t>(regex_->NumberOfCapturingGroups());
  scan_replacement(
      replacement,
      [&](std::size_t group) {
        if (group > groups) {
          throw NameRegexError("$" + std::to_string(group) +
                               " names a group the pattern lacks (it has " +
                               std::to_string(groups) + ")");
        }
      },
      [](char) {});
}

std::string NameRegex::exactly(std::string_view text) {
  std::string pattern = "^";
  pattern += RE2::QuoteMeta(piece(text));
  pattern += '$';
  return pattern;
}

}  // namespace tscope
