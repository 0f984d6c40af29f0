#include "tscope/profiler/output_name.h"

#include <unistd.h>

#include <array>
#include <charconv>
#include <cstdlib>

#include "tscope/profiler/session.h"

namespace tscope::profiler {

std::optional<int> launcher_rank() {
  for (const std::string_view variable : kLauncherRankVariables) {
    const char* value = std::getenv(std::string(variable).c_str());
    if (value == nullptr || *value == '\0') continue;
    const std::string_view text(value);
    int rank = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (error != std::errc() || end != text.data() + text.size() || rank < 0) {
      throw ProfilerError(std::string(variable) + "=" + std::string(text) +
                          " is not a rank (a non-negative integer)");
    }
    return rank;
  }
  return std::nullopt;
}

OutputNameFields this_process_output_fields() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return {.rank = launcher_rank(), .pid = static_cast<long>(getpid()), .host = host.data()};
}

std::string expand_output_name(std::string_view pattern, const OutputNameFields& fields) {
  std::string expanded;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      expanded += pattern[i];
      continue;
    }
    const char field = i + 1 < pattern.size() ? pattern[++i] : '\0';
    switch (field) {
      case 'r':
        if (!fields.rank) {
          std::string variables;
          for (const std::string_view variable : kLauncherRankVariables) {
            variables += (variables.empty() ? "" : ", ") + std::string(variable);
          }
          throw ProfilerError("'" + std::string(pattern) +
                              "' asks for the rank (%r), but none of " + variables +
                              " is set; start it under mpirun, srun or torchrun");
        }
        expanded += std::to_string(*fields.rank);
        break;
      case 'p':
        expanded += std::to_string(fields.pid);
        break;
      case 'h':
        expanded += fields.host;
        break;
      case '%':
        expanded += '%';
        break;
      default:
        throw ProfilerError("'" + std::string(pattern) + "': unknown field %" +
                            (field == '\0' ? std::string() : std::string(1, field)) +
                            " (use %r for the rank, %p the pid, %h the host, %% a percent sign)");
    }
  }
  return expanded;
}

}  // namespace tscope::profiler
