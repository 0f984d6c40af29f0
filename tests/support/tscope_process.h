#pragma once
// Runs the built `tscope` binary as a child process, as a user or CI script does, capturing its
// exit code and output.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace tscope::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// `redirect` decides what the captured output holds: "2>&1" (the default) for what a person
// sees, "2>/dev/null" where only stdout must parse.
inline CommandResult run_tscope(const std::string& arguments, const char* redirect = "2>&1") {
  const std::string command =
      std::string(TSCOPE_BINARY_DIR) + "/bin/tscope " + arguments + " " + redirect;
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return result;
  }
  std::array<char, 4096> buffer{};
  for (std::size_t read = 0; (read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
    result.output.append(buffer.data(), read);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// `path` single-quoted for the shell command line run_tscope builds.
inline std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

}  // namespace tscope::testing
