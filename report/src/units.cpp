#include "tscope/report/units.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace tscope {
namespace {

// Three significant digits: "1.23", "12.3", "123".
std::string significant(double value, const char* unit) {
  char text[64];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, unit);
  return text;
}

}  // namespace

std::string format_duration(double nanoseconds) {
  const double magnitude = std::fabs(nanoseconds);
  if (magnitude < 1e3) {
    // Durations are whole nanoseconds in every trace; a decimal there would be noise.
    char text[32];
    std::snprintf(text, sizeof text, "%.0f ns", nanoseconds);
    return text;
  }
  if (magnitude < 1e6) return significant(nanoseconds / 1e3, "µs");
  if (magnitude < 1e9) return significant(nanoseconds / 1e6, "ms");
  return significant(nanoseconds / 1e9, "s");
}

std::string format_bytes(double bytes) {
  static constexpr std::array kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (std::fabs(bytes) >= 1024 && unit + 1 < kUnits.size()) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f B", bytes);
    return text;
  }
  return significant(bytes, kUnits[unit]);
}

std::string format_percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share * 100);
  return text;
}

}  // namespace tscope
