#pragma once
// Regular expressions from a policy file (name patterns, normalize pairings), compiled by
// std::regex only once they are known to be safe for it.

#include <regex>
#include <string_view>

namespace tscope::regress {

// `regex` as an ECMAScript std::regex, or RegressInputError "LABEL: why" when it is longer than
// std::regex's recursive compiler and matcher can take without risk to the stack, holds a repeat
// count or back-reference that libstdc++ would read into an int without an overflow check, or
// does not compile.
std::regex compile_policy_regex(std::string_view regex, std::string_view label);

}  // namespace tscope::regress
