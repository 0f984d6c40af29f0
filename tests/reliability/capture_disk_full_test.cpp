// A trace whose file cannot grow (RLIMIT_FSIZE, as a full disk or quota does): the recording
// ends with one clear message, the program keeps running to its own exit code, and everything
// written before the failure stays readable.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "trace_queries.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

constexpr rlim_t kFileSizeLimit = rlim_t{8} * 1024;

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr of tscope and the program
};

Outcome record_with_file_size_limit(const std::filesystem::path& trace) {
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  const pid_t child = fork();
  if (child == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    const rlimit limit{kFileSizeLimit, kFileSizeLimit};
    setrlimit(RLIMIT_FSIZE, &limit);
    execl(TSCOPE_CLI, TSCOPE_CLI, "record", "-o", trace.c_str(), "--", TSCOPE_STEADY_NVTX_PROGRAM,
          "2000", static_cast<char*>(nullptr));
    _exit(126);
  }
  close(out[1]);
  Outcome outcome;
  char buffer[4096];
  for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) > 0;)
    outcome.output.append(buffer, static_cast<std::size_t>(got));
  close(out[0]);
  int status = 0;
  waitpid(child, &status, 0);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

TEST(CaptureDiskFull, RecordingEndsWithOneMessageAndTheProgramRunsToItsOwnExit) {
  const auto path = testing::temporary_trace_path();
  const Outcome outcome = record_with_file_size_limit(path);
  // The program ran to its end (it printed its count) and its exit code came back.
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(occurrences(outcome.output, "done "), 1u) << outcome.output;
  EXPECT_EQ(occurrences(outcome.output, "recording stopped early"), 1u) << outcome.output;
  EXPECT_EQ(occurrences(outcome.output, "File too large"), 1u) << outcome.output;
  EXPECT_NE(outcome.output.find(path.string()), std::string::npos) << outcome.output;

  // What was written before the failure loads, cut off at the last whole chunk.
  ASSERT_LE(std::filesystem::file_size(path), kFileSizeLimit);
  const trace::Trace trace = trace::load_trace(path);
  EXPECT_GT(testing::spans_named(trace, "tick").size(), 0u);
  // The record command's own summary names the bytes cut off, exactly when there are some.
  const bool cut = trace.metadata().lost_bytes > 0 || trace.metadata().lost_records > 0;
  EXPECT_EQ(occurrences(outcome.output, "the trace is cut short"), cut ? 1u : 0u) << outcome.output;
  if (cut) {
    EXPECT_NE(outcome.output.find(std::to_string(trace.metadata().lost_bytes) + " bytes"),
              std::string::npos)
        << outcome.output;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tscope::profiler
