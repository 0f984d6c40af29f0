// SIGKILL at random times, of the recorded program and of `tscope record` itself. Every trace
// loads. A killed program loses at most the last flush interval plus the ranges still open: the
// trace's last range ends no earlier than the kill minus the trace's flush interval (and a margin
// for a loaded machine). A killed recorder loses nothing: the program keeps running to its own
// end, and its trace holds every range it closed.
//
// CI runs a handful of rounds; TSCOPE_KILL_ROUNDS=100 is the local run of docs/reliability.md.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "trace_queries.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"

namespace tscope::profiler {
namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, the trace's clock

// What the machine may add between a flush being due and it reaching the file (a loaded CI
// machine delays the writer thread's wake-ups).
constexpr std::chrono::milliseconds kSchedulingMargin{2000};

int rounds() {
  const char* value = std::getenv("TSCOPE_KILL_ROUNDS");
  return value != nullptr ? std::atoi(value) : 6;
}

// `tscope record -o OUTPUT -- steady_nvtx_program MS` with its stdout on a pipe.
class Recording {
 public:
  Recording(const std::filesystem::path& output, int milliseconds) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    recorder_ = fork();
    if (recorder_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      const std::string ms = std::to_string(milliseconds);
      execl(TSCOPE_CLI, TSCOPE_CLI, "record", "-o", output.c_str(), "--",
            TSCOPE_STEADY_NVTX_PROGRAM, ms.c_str(), static_cast<char*>(nullptr));
      _exit(126);
    }
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
    int pid = 0;
    if (std::fscanf(stdout_, "ready %d", &pid) == 1) program_ = pid;
  }
  ~Recording() {
    if (recorder_ > 0) kill(recorder_, SIGKILL);
    if (program_ > 0) kill(program_, SIGKILL);
    if (recorder_ > 0) waitpid(recorder_, nullptr, 0);
    std::fclose(stdout_);
  }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  pid_t recorder() const { return recorder_; }
  pid_t program() const { return program_; }
  // The "done N" line of a program that ran to its end; -1 if it printed none.
  long closed_ranges() {
    long count = -1;
    return std::fscanf(stdout_, " done %ld", &count) == 1 ? count : -1;
  }
  int recorder_status() {
    int status = 0;
    waitpid(recorder_, &status, 0);
    recorder_ = -1;
    return status;
  }
  void forget_program() { program_ = -1; }

 private:
  pid_t recorder_ = -1;
  pid_t program_ = -1;
  std::FILE* stdout_ = nullptr;
};

trace::TimeNs ns(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

trace::TimeNs last_tick_end(const trace::Trace& trace) {
  trace::TimeNs last = 0;
  for (const auto& span : testing::spans_named(trace, "tick"))
    last = std::max(last, trace.track(span.track).spans().end(span.index));
  return last;
}

TEST(CaptureKill, ASigkilledProgramLosesAtMostTheLastFlushIntervalAndItsOpenRanges) {
  std::mt19937 random(20261201);
  for (int round = 0; round < rounds(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto path = testing::temporary_trace_path();
    Recording recording(path, 60'000);
    ASSERT_GT(recording.program(), 0);
    const Clock::time_point started = Clock::now();
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 3000)(random)));
    const Clock::time_point killed = Clock::now();
    kill(recording.program(), SIGKILL);
    recording.forget_program();
    const int status = recording.recorder_status();
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGKILL);

    const trace::Trace trace = trace::load_trace(path);
    // A file killed before its first flush has no metadata yet; the interval is then the default.
    const auto& values = trace.metadata().values;
    const auto written = values.find("flush_interval_ms");
    const auto flush_interval = written == values.end()
                                    ? SessionOptions{}.flush_interval
                                    : std::chrono::milliseconds(std::stoll(written->second));
    // Ranges closed before the last flush that was due are in the file.
    const Clock::time_point flushed_by = killed - flush_interval - kSchedulingMargin;
    if (flushed_by > started) {
      EXPECT_GE(last_tick_end(trace), ns(flushed_by))
          << "more than one flush interval of ranges lost";
    }
    EXPECT_LE(last_tick_end(trace), ns(killed));
    std::filesystem::remove(path);
  }
}

TEST(CaptureKill, ASigkilledRecorderLeavesTheProgramRunningAndItsTraceWhole) {
  // Orphaned by the recorder's death, the program becomes this process's child, to be waited for.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::mt19937 random(20261202);
  for (int round = 0; round < rounds(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto path = testing::temporary_trace_path();
    Recording recording(path, 1500);
    ASSERT_GT(recording.program(), 0);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 1000)(random)));
    kill(recording.recorder(), SIGKILL);
    recording.recorder_status();
    // The program still runs to its end and says how many ranges it closed.
    const long closed = recording.closed_ranges();
    ASSERT_GT(closed, 0) << "the program did not run to its end";
    // It has printed its last line; wait until it has exited, so its trace is closed.
    int status = 0;
    ASSERT_EQ(waitpid(recording.program(), &status, 0), recording.program());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    recording.forget_program();

    const trace::Trace trace = trace::load_trace(path);
    EXPECT_EQ(static_cast<long>(testing::spans_named(trace, "tick").size()), closed);
    EXPECT_EQ(trace.metadata().lost_bytes, 0u);
    EXPECT_EQ(trace.metadata().dropped_events, 0u);
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace tscope::profiler
