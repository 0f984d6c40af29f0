#pragma once
// Runs the built `tscope` binary (or another program of the build) as a child process, as a user
// or CI script does, capturing its exit code and output.

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

// Runs `shell_command` through the shell. `redirect` decides what the captured output holds: "2>&1"
// (the default) for what a person sees, "2>/dev/null" where only stdout must parse.
inline CommandResult run_command(const std::string& shell_command, const char* redirect = "2>&1") {
  const std::string command = shell_command + " " + redirect;
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

// A program the build put in its bin/ folder.
inline std::filesystem::path built_program(const std::string& name) {
  return std::filesystem::path(TSCOPE_BINARY_DIR) / "bin" / name;
}

inline CommandResult run_tscope(const std::string& arguments, const char* redirect = "2>&1") {
  return run_command(built_program("tscope").string() + " " + arguments, redirect);
}

// `path` single-quoted for the shell command line run_tscope builds.
inline std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

}  // namespace tscope::testing
