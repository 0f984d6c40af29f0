// `tscope record` on real child processes: an NVTX program that does not link tensorscope is
// captured with its ranges, marks and thread names; the program's exit code comes back; SIGTERM
// reaches it and the trace is still complete; a SIGKILLed program leaves a readable trace.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "trace_queries.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using testing::span_arg;
using testing::spans_named;
using testing::temporary_trace_path;
using testing::track_name;

// A running `tscope record -o OUTPUT -- ARGS...` whose standard output the test reads.
class RecordProcess {
 public:
  RecordProcess(const std::filesystem::path& output, const std::vector<std::string>& command) {
    std::vector<std::string> arguments = {TSCOPE_CLI, "record", "-o", output.string(), "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (auto& argument : arguments)
        argv.push_back(argument.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(126);
    }
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
  }
  ~RecordProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait_for_status();
    }
    if (stdout_ != nullptr) std::fclose(stdout_);
  }
  RecordProcess(const RecordProcess&) = delete;
  RecordProcess& operator=(const RecordProcess&) = delete;

  std::string read_line() {
    char line[256];
    return std::fgets(line, sizeof line, stdout_) == nullptr ? "" : std::string(line);
  }
  void signal(int signal_number) const { kill(pid_, signal_number); }
  // The exit code of tscope itself (-1 if it did not exit normally).
  int exit_code() {
    const int status = wait_for_status();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  int wait_for_status() {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

  pid_t pid_ = -1;
  std::FILE* stdout_ = nullptr;
};

int record(const std::filesystem::path& output, const std::vector<std::string>& command) {
  RecordProcess process(output, command);
  return process.exit_code();
}

TEST(RecordCommand, CapturesAnNvtxProgramThatDoesNotLinkTensorscope) {
  const auto path = temporary_trace_path();
  ASSERT_EQ(record(path, {TSCOPE_NVTX_SAMPLE_PROGRAM, "run"}), 0);
  const trace::Trace recorded = trace::load_trace(path);

  const auto outer = spans_named(recorded, "outer");
  const auto inner = spans_named(recorded, "inner");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(recorded.track(inner[0].track).spans().depth[inner[0].index], 1);
  EXPECT_EQ(track_name(recorded, outer[0].track), "sample main");
  EXPECT_EQ(testing::instants_named(recorded, "checkpoint"), 1u);

  const auto worker = spans_named(recorded, "worker range");
  ASSERT_EQ(worker.size(), 1u);
  EXPECT_EQ(track_name(recorded, worker[0].track), "sample worker");
  EXPECT_EQ(spans_named(recorded, "across threads").size(), 1u);
}

TEST(RecordCommand, CapturesDomainsCategoriesRegisteredStringsAndPayloads) {
  const auto path = temporary_trace_path();
  ASSERT_EQ(record(path, {TSCOPE_NVTX_SAMPLE_PROGRAM, "run"}), 0);
  const trace::Trace recorded = trace::load_trace(path);
  const auto registered = spans_named(recorded, "registered name");
  ASSERT_EQ(registered.size(), 1u);
  EXPECT_EQ(span_arg(recorded, registered[0], "domain"), "sample domain");
  EXPECT_EQ(span_arg(recorded, registered[0], "category"), "io");
  EXPECT_EQ(span_arg(recorded, registered[0], "payload"), "42");
}

TEST(RecordCommand, ExitsWithTheProgramsExitCode) {
  EXPECT_EQ(record(temporary_trace_path(), {TSCOPE_NVTX_SAMPLE_PROGRAM, "run", "3"}), 3);
}

TEST(RecordCommand, ExitsWith127WhenTheProgramCannotStart) {
  const auto path = temporary_trace_path();
  EXPECT_EQ(record(path, {"/nonexistent/tscope-no-such-program"}), 127);
}

TEST(RecordCommand, WritesATraceForAProgramThatMakesNoNvtxCall) {
  const auto path = temporary_trace_path();
  ASSERT_EQ(record(path, {"/bin/true"}), 0);
  const trace::Trace recorded = trace::load_trace(path);
  ASSERT_EQ(recorded.processes().size(), 1u);
  EXPECT_EQ(recorded.string(recorded.processes()[0].name), "true");
}

TEST(RecordCommand, ForwardsSigtermAndStillCompletesTheTrace) {
  const auto path = temporary_trace_path();
  RecordProcess process(path, {TSCOPE_NVTX_SAMPLE_PROGRAM, "wait"});
  ASSERT_EQ(process.read_line(), "ready\n");
  process.signal(SIGTERM);
  EXPECT_EQ(process.exit_code(), 128 + SIGTERM);
  const trace::Trace recorded = trace::load_trace(path);
  const auto waiting = spans_named(recorded, "waiting");
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(span_arg(recorded, waiting[0], "unfinished"), "1");
  EXPECT_EQ(recorded.metadata().lost_bytes, 0u);
}

TEST(RecordCommand, AProgramKilledBySigkillLeavesAReadableTrace) {
  const auto path = temporary_trace_path();
  EXPECT_EQ(record(path, {TSCOPE_NVTX_SAMPLE_PROGRAM, "crash"}), 128 + SIGKILL);
  const trace::Trace recorded = trace::load_trace(path);
  EXPECT_EQ(spans_named(recorded, "before crash").size(), 1u);
}

}  // namespace
}  // namespace tscope::profiler
