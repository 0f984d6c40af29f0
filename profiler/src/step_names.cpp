#include "tscope/profiler/step_names.h"

#include <charconv>
#include <cstddef>

namespace tscope::profiler {
namespace {

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != lower[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> step_number(std::string_view name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
    --digits;
  if (digits == name.size() || name.size() - digits > 18) return std::nullopt;
  const std::string_view prefix = name.substr(0, digits);
  if (!equals_ignoring_case(prefix, "step ") && !equals_ignoring_case(prefix, "profilerstep#"))
    return std::nullopt;
  std::int64_t value = 0;
  std::from_chars(name.data() + digits, name.data() + name.size(), value);
  return value;
}

}  // namespace tscope::profiler
