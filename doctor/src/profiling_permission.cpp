#include "tscope/doctor/profiling_permission.h"

#include <charconv>

namespace tscope::doctor {

std::optional<bool> parse_profiling_admin_only(std::string_view params_text) {
  // Drivers publish the setting under one of two names: older ones echo the module option,
  // newer (and the open kernel module) publish the resource manager's own key.
  constexpr std::string_view kKeys[] = {"RmProfilingAdminOnly:", "RestrictProfilingToAdminUsers:"};
  std::size_t line_start = 0;
  while (line_start < params_text.size()) {
    const auto line_end = params_text.find('\n', line_start);
    std::string_view line = params_text.substr(line_start, line_end - line_start);
    for (const std::string_view key : kKeys) {
      if (!line.starts_with(key)) {
        continue;
      }
      line.remove_prefix(key.size());
      while (!line.empty() && line.front() == ' ') {
        line.remove_prefix(1);
      }
      int value = 0;
      const auto parsed = std::from_chars(line.data(), line.data() + line.size(), value);
      if (parsed.ec != std::errc{} || (value != 0 && value != 1)) {
        return std::nullopt;
      }
      return value == 1;
    }
    if (line_end == std::string_view::npos) {
      break;
    }
    line_start = line_end + 1;
  }
  return std::nullopt;
}

}  // namespace tscope::doctor
