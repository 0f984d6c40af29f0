#include "tscope/doctor/versions.h"

#include <fmt/format.h>

#include <array>
#include <charconv>

namespace tscope::doctor {

std::string CudaVersion::to_string() const {
  return fmt::format("{}.{}", major, minor);
}

std::optional<DriverVersion> DriverVersion::parse(std::string_view text) {
  std::array<int, 3> parts{};
  std::size_t count = 0;
  const char* cursor = text.data();
  const char* end = text.data() + text.size();
  while (cursor != end && count < parts.size()) {
    const auto [next, error] = std::from_chars(cursor, end, parts[count]);
    if (error != std::errc{} || parts[count] < 0) {
      return std::nullopt;
    }
    ++count;
    cursor = next;
    if (cursor != end) {
      if (*cursor != '.') {
        return std::nullopt;
      }
      ++cursor;
      if (cursor == end) {
        return std::nullopt;
      }
    }
  }
  if (cursor != end || count < 2) {
    return std::nullopt;
  }
  return DriverVersion{parts[0], parts[1], parts[2]};
}

std::string DriverVersion::to_string() const {
  // A bare branch ("580") is how NVIDIA states minor-version-compatibility minimums.
  if (minor == 0 && patch == 0) {
    return fmt::format("{}", major);
  }
  if (patch == 0) {
    return fmt::format("{}.{:02}", major, minor);
  }
  return fmt::format("{}.{:02}.{:02}", major, minor, patch);
}

}  // namespace tscope::doctor
