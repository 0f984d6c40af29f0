#pragma once
// Texts one after another in one string: the tests' JSON snippets are built from pieces, and one
// append per piece keeps clang-tidy's concatenation check quiet without a chain of temporaries.

#include <initializer_list>
#include <string>
#include <string_view>

namespace tscope::testing {

inline std::string joined(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts)
    text += part;
  return text;
}

}  // namespace tscope::testing
