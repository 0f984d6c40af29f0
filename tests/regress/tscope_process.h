#pragma once
// Runs the built `tscope` binary as a child process, as CI does, capturing its exit code and
// its output (stdout and stderr together).

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace tscope::regress::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult run_tscope(const std::string& arguments) {
  const std::string command = std::string(TSCOPE_BINARY_DIR) + "/bin/tscope " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  for (std::size_t read = 0; (read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
    result.output.append(buffer.data(), read);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

}  // namespace tscope::regress::testing
