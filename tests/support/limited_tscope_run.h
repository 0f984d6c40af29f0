#pragma once
// Runs the built `tscope info FILE` as a child process under an address-space limit (RLIMIT_AS,
// what `ulimit -v` sets), as the memory-bound tests of every reader do, and checks what a hostile
// input must give: exit 2 with a message naming the file, and a peak resident memory (from wait4)
// far below the limit.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_folder.h"
#include "tscope_process.h"

namespace tscope::testing {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
// Below the gigabyte-sized inputs, so that a reader holding one fails; far above what tscope needs.
constexpr std::uint64_t kLimitedAddressSpace = 768 * kMiB;
// What the README promises: memory that holds the events, not the input.
constexpr std::uint64_t kBoundedPeakResident = 256 * kMiB;

struct LimitedRun {
  int exit_code = -1;
  std::string output;
  std::uint64_t peak_resident_bytes = 0;
};

// Runs `tscope info path` with its address space limited to kLimitedAddressSpace.
inline LimitedRun run_info_limited(const std::filesystem::path& path) {
  const std::string program = built_program("tscope").string();
  const std::string command = "info";
  const std::string file = path.string();
  // Built before fork: the child only sets its limit, redirects and execs.
  std::vector<char*> argv = {const_cast<char*>(program.c_str()), const_cast<char*>(command.c_str()),
                             const_cast<char*>(file.c_str()), nullptr};
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) {
    ADD_FAILURE() << "pipe failed";
    return {};
  }
  const pid_t child = fork();
  if (child == 0) {
    const rlimit limit{kLimitedAddressSpace, kLimitedAddressSpace};
    setrlimit(RLIMIT_AS, &limit);
    dup2(pipe_ends[1], STDOUT_FILENO);
    dup2(pipe_ends[1], STDERR_FILENO);
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_ends[1]);
  LimitedRun run;
  char buffer[4096];
  for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    run.output.append(buffer, static_cast<std::size_t>(got));
  close(pipe_ends[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.peak_resident_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  return run;
}

inline std::filesystem::path write_scratch(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = scratch_path(name);
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

inline void expect_bounded(const LimitedRun& run) {
  EXPECT_LT(run.peak_resident_bytes, kBoundedPeakResident) << run.output;
}

// Exit 2, a message naming `path` and holding `message`, in bounded memory.
inline void expect_bad_input(const LimitedRun& run, const std::filesystem::path& path,
                             std::string_view message) {
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find(path.string() + ": "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(message), std::string::npos) << run.output;
  expect_bounded(run);
}

}  // namespace tscope::testing
