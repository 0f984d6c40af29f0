// Exit codes of `tscope`: bad arguments and bad input exit 2 with a message that names the file,
// the byte offset and what was wrong; a bug (an exception type no input should cause, a crash)
// exits 3 with a short request for a report; neither prints a stack trace.

#include "exit_codes.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "scratch_folder.h"
#include "tscope/trace/errors.h"
#include "tscope_process.h"

namespace tscope::cli {
namespace {

using tscope::testing::quoted;
using tscope::testing::run_tscope;

template <typename Throw>
std::pair<int, std::string> code_and_message(Throw throw_it) {
  std::ostringstream message;
  try {
    throw_it();
  } catch (...) {
    const int code = exit_code_for_current_exception(message);
    return {code, message.str()};
  }
  return {-1, ""};
}

TEST(ExitCodes, AFormatErrorIsBadInputNamingFileAndOffset) {
  const auto [code, message] =
      code_and_message([] { throw trace::FormatError("run.tsc", 4096, "chunk size too large"); });
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_EQ(message, "tscope: run.tsc: at byte 4096: chunk size too large\n");
}

TEST(ExitCodes, LogicErrorsBadAllocAndUnknownTypesAreInternalErrors) {
  for (const auto& [code, message] :
       {code_and_message([] { throw std::logic_error("index past the end"); }),
        code_and_message([] { throw std::bad_alloc(); }), code_and_message([] { throw 42; })}) {
    EXPECT_EQ(code, kExitInternalError) << message;
    EXPECT_NE(message.find("internal error"), std::string::npos) << message;
    EXPECT_NE(message.find("please report it"), std::string::npos) << message;
  }
}

// The crash handlers are off in sanitizer builds (the sanitizer's report must reach the test).
TEST(ExitCodes, ACrashExitsThreeWithOneLineAndNoStackTrace) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer build: its own handlers report crashes";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
  GTEST_SKIP() << "sanitizer build: its own handlers report crashes";
#endif
#endif
  for (const int signal : {SIGSEGV, SIGABRT, SIGFPE}) {
    int pipe_ends[2];
    ASSERT_EQ(pipe(pipe_ends), 0);
    const pid_t child = fork();
    if (child == 0) {
      dup2(pipe_ends[1], STDERR_FILENO);
      install_crash_handlers();
      raise(signal);
      _exit(0);
    }
    close(pipe_ends[1]);
    std::string output;
    char buffer[512];
    for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
      output.append(buffer, static_cast<std::size_t>(got));
    close(pipe_ends[0]);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << signal;
    EXPECT_EQ(WEXITSTATUS(status), kExitInternalError) << "signal " << signal;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
    EXPECT_NE(output.find("internal error"), std::string::npos) << output;
  }
}

TEST(ExitCodes, AnUnknownOptionExitsTwoNamingIt) {
  const auto result =
      run_tscope("analyze --no-such-option " + quoted(TSCOPE_CLI_FUZZ_FILES "/trace.tsc"));
  EXPECT_EQ(result.exit_code, kExitBadInput) << result.output;
  EXPECT_NE(result.output.find("--no-such-option"), std::string::npos) << result.output;
}

TEST(ExitCodes, AMissingSubcommandExitsTwo) {
  EXPECT_EQ(run_tscope("").exit_code, kExitBadInput);
}

TEST(ExitCodes, AMissingFileExitsTwoNamingIt) {
  const auto result = run_tscope("info /nonexistent/trace.tsc");
  EXPECT_EQ(result.exit_code, kExitBadInput) << result.output;
  EXPECT_NE(result.output.find("/nonexistent/trace.tsc"), std::string::npos) << result.output;
}

// A real .tsc cut in the middle of a chunk and with a flipped payload byte: every command that
// reads it exits 2 naming the file and a byte offset, and prints no stack trace.
TEST(ExitCodes, ADamagedTraceExitsTwoNamingFileAndOffset) {
  const std::filesystem::path sample = TSCOPE_CLI_FUZZ_FILES "/trace.tsc";
  std::ifstream input(sample, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(input), std::istreambuf_iterator<char>()};
  ASSERT_GT(bytes.size(), 64u);
  bytes[40] = static_cast<char>(bytes[40] ^ 0x5a);
  const auto damaged = tscope::testing::scratch_path("tscope-damaged.tsc");
  std::ofstream(damaged, std::ios::binary) << bytes;
  for (const std::string& command :
       std::vector<std::string>{"info", "analyze", "diff " + quoted(damaged)}) {
    const auto result = run_tscope(command + " " + quoted(damaged));
    EXPECT_EQ(result.exit_code, kExitBadInput) << command << ": " << result.output;
    EXPECT_NE(result.output.find(damaged.string()), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("at byte "), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("terminate"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("#0 "), std::string::npos) << result.output;
  }
  std::filesystem::remove(damaged);
}

}  // namespace
}  // namespace tscope::cli
