// `tscope record` capture windows on real child processes (the NVTX sample program's PyTorch-like
// steps, and the engine's training example): --steps, --capture-range nvtx:NAME, --delay and
// --duration, --start-paused with SIGUSR1 to tscope record, and --buffer-mb / --flush-ms reaching
// the program's session. The program's session applies the window as it runs: every span of the
// trace lies inside the window it records, and nothing from outside it was captured.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "test_data.h"
#include "trace_queries.h"
#include "tscope/trace/capture_window.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::profiler {
namespace {

using testing::spans_named;
using testing::temporary_trace_path;

std::string record_command(const std::filesystem::path& output, const std::string& options,
                           const std::string& program_arguments) {
  return std::string(TSCOPE_CLI) + " record -o " + testing::quoted(output) + " " + options +
         " -- " + TSCOPE_NVTX_SAMPLE_PROGRAM + " " + program_arguments;
}

// Records the sample program's `steps ARGUMENTS` with `options` into `path`; the trace, with the
// test failed when tscope record did not exit 0.
trace::Trace record_steps_into(const std::filesystem::path& path, const std::string& options,
                               const std::string& arguments) {
  const testing::CommandResult result =
      testing::run_command(record_command(path, options, "steps " + arguments));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return trace::load_trace(path);
}

// Records `steps COUNT MS` of the sample program with `options`.
trace::Trace record_steps(const std::string& options, int count, int milliseconds) {
  return record_steps_into(temporary_trace_path(), options,
                           std::to_string(count) + " " + std::to_string(milliseconds));
}

std::size_t steps_kept(const trace::Trace& recorded, int count,
                       const std::string& prefix = "ProfilerStep#") {
  std::size_t kept = 0;
  for (int step = 1; step <= count; ++step)
    kept += spans_named(recorded, prefix + std::to_string(step)).size();
  return kept;
}

// Every span of the trace lies inside its recorded window: the program recorded nothing before
// the window opened or after it closed, and ranges open at its close end there.
void expect_spans_inside(const trace::Trace& recorded, const trace::CaptureWindow& window) {
  for (const trace::Track& track : recorded.tracks()) {
    const trace::SpanColumns& spans = track.spans();
    for (std::size_t span = 0; span < spans.size(); ++span) {
      EXPECT_GE(spans.start[span], window.begin) << recorded.string(spans.name[span]);
      EXPECT_LE(spans.end(span), window.end) << recorded.string(spans.name[span]);
    }
  }
}

trace::CaptureWindow window_of(const trace::Trace& recorded) {
  const std::optional<trace::CaptureWindow> window = trace::capture_window(recorded.metadata());
  EXPECT_TRUE(window.has_value());
  return window.value_or(trace::CaptureWindow{});
}

// `tscope analyze PATH` reports `steps` steps.
void expect_analyzed_steps(const std::filesystem::path& path, std::size_t steps) {
  const testing::CommandResult analyzed = testing::run_tscope("analyze " + testing::quoted(path));
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.output;
  EXPECT_NE(analyzed.output.find("Steps: " + std::to_string(steps) + " steps"), std::string::npos)
      << analyzed.output;
}

TEST(RecordWindow, StepsCaptureOnlyThoseStepsOfAnNvtxProgram) {
  const auto path = temporary_trace_path();
  const trace::Trace recorded = record_steps_into(path, "--steps 3:5", "8 30");
  for (const char* step : {"ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5"})
    EXPECT_EQ(spans_named(recorded, step).size(), 1u) << step;
  EXPECT_EQ(steps_kept(recorded, 8), 3u);
  EXPECT_EQ(spans_named(recorded, "forward").size(), 3u);
  EXPECT_TRUE(spans_named(recorded, "setup").empty());
  const trace::CaptureWindow window = window_of(recorded);
  expect_spans_inside(recorded, window);
  // PyTorch's NVTX ProfilerStep#N ranges are the analyzer's steps: B - A + 1 of them.
  expect_analyzed_steps(path, 3);
}

TEST(RecordWindow, StepsRecogniseNvtxRangesNamedStepN) {
  const auto path = temporary_trace_path();
  const trace::Trace recorded = record_steps_into(path, "--steps 2:3", "5 20 'step '");
  EXPECT_EQ(spans_named(recorded, "step 2").size(), 1u);
  EXPECT_EQ(spans_named(recorded, "step 3").size(), 1u);
  EXPECT_EQ(steps_kept(recorded, 5, "step "), 2u);
  expect_spans_inside(recorded, window_of(recorded));
  expect_analyzed_steps(path, 2);
}

TEST(RecordWindow, CaptureRangeCapturesTheFirstRangeOfThatName) {
  const trace::Trace recorded = record_steps("--capture-range nvtx:forward", 4, 20);
  const auto forward = spans_named(recorded, "forward");
  ASSERT_EQ(forward.size(), 1u);
  // The first "forward" opens inside step 1, which began before the window: no step is captured.
  EXPECT_EQ(steps_kept(recorded, 4), 0u);
  const trace::CaptureWindow window = window_of(recorded);
  expect_spans_inside(recorded, window);
  // It closed as that range closed: the later steps' "forward" ranges are not in the trace.
  const trace::SpanColumns& spans = recorded.track(forward[0].track).spans();
  EXPECT_GE(spans.end(forward[0].index) - spans.start[forward[0].index], 20'000'000);
}

TEST(RecordWindow, DelayAndDurationBoundTheWindow) {
  const trace::Trace recorded = record_steps("--delay 150ms --duration 0.2", 12, 40);
  const trace::CaptureWindow window = window_of(recorded);
  // The window closes at the writer's first wake-up past its duration (late on a loaded machine).
  EXPECT_GE(window.end - window.begin, 200'000'000);
  EXPECT_LT(window.end - window.begin, 400'000'000);
  expect_spans_inside(recorded, window);
  // Steps that began inside 200 to 400 ms of 40 ms steps: 4 to 10 of them, or fewer when a
  // loaded machine (or a sanitizer build) stretches the program's steps.
  EXPECT_GE(steps_kept(recorded, 12), 2u);
  EXPECT_LE(steps_kept(recorded, 12), 10u);
  EXPECT_TRUE(spans_named(recorded, "setup").empty());
  EXPECT_TRUE(spans_named(recorded, "ProfilerStep#1").empty());
}

// `tscope record [OPTION] -- nvtx_sample_program steps 8 40`, sent SIGUSR1 as each of the steps
// named in `signal_at` starts (as the program prints it), so the signals land inside those steps
// however slowly the machine runs the program. The trace, empty when recording failed.
trace::Trace record_signalled(const char* option, const std::vector<std::string>& signal_at) {
  const auto path = temporary_trace_path();
  int out[2];
  if (pipe(out) != 0) return {};
  const pid_t recorder = fork();
  if (recorder < 0) return {};
  if (recorder == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::vector<const char*> argv = {TSCOPE_CLI, "record", "-o", path.c_str()};
    if (option != nullptr) argv.push_back(option);
    for (const char* argument : {"--", TSCOPE_NVTX_SAMPLE_PROGRAM, "steps", "8", "40"})
      argv.push_back(argument);
    argv.push_back(nullptr);
    execv(TSCOPE_CLI, const_cast<char* const*>(argv.data()));
    _exit(126);
  }
  close(out[1]);
  FILE* program_output = fdopen(out[0], "r");
  char line[64];
  while (std::fgets(line, sizeof line, program_output) != nullptr) {
    for (const std::string& step : signal_at) {
      if (line == step + "\n") kill(recorder, SIGUSR1);
    }
  }
  std::fclose(program_output);
  int status = 0;
  EXPECT_EQ(waitpid(recorder, &status, 0), recorder);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  return trace::load_trace(path);
}

// Signalled as steps 2 and 6 start, a paused capture holds steps 3 to 5 and part of 6.
TEST(RecordWindow, Sigusr1StartsAndStopsAPausedCapture) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer defers asynchronous signals to the recorder's next intercepted call: there
  // both SIGUSR1 were taken at one instant (a window of 0 s), which tests the sanitizer.
  GTEST_SKIP() << "ThreadSanitizer defers the recorder's signals; this runs in the regular build";
#endif
  const trace::Trace recorded =
      record_signalled("--start-paused", {"ProfilerStep#2", "ProfilerStep#6"});
  expect_spans_inside(recorded, window_of(recorded));
  // Step 2 began before its name was printed, so before capture started.
  EXPECT_TRUE(spans_named(recorded, "ProfilerStep#1").empty());
  EXPECT_TRUE(spans_named(recorded, "ProfilerStep#2").empty());
  for (const char* step : {"ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#5"})
    EXPECT_EQ(spans_named(recorded, step).size(), 1u) << step;
  EXPECT_TRUE(spans_named(recorded, "ProfilerStep#7").empty());
  EXPECT_TRUE(spans_named(recorded, "ProfilerStep#8").empty());
}

// Without --start-paused the first SIGUSR1 stops capture: signalled as step 3 starts, the trace
// holds steps 1 to 3 and nothing after.
TEST(RecordWindow, Sigusr1StopsARunningCapture) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer defers the recorder's signals; this runs in the regular build";
#endif
  const trace::Trace recorded = record_signalled(nullptr, {"ProfilerStep#3"});
  expect_spans_inside(recorded, window_of(recorded));
  for (const char* step : {"ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"})
    EXPECT_EQ(spans_named(recorded, step).size(), 1u) << step;
  for (int step = 4; step <= 8; ++step)
    EXPECT_TRUE(spans_named(recorded, "ProfilerStep#" + std::to_string(step)).empty()) << step;
}

TEST(RecordWindow, StartPausedWithoutASignalKeepsNoneOfTheSteps) {
  const trace::Trace recorded = record_steps("--start-paused", 3, 10);
  EXPECT_EQ(steps_kept(recorded, 3), 0u);
  EXPECT_TRUE(trace::capture_window(recorded.metadata()).has_value());
}

TEST(RecordWindow, BufferAndFlushSettingsReachTheProgramsSession) {
  const trace::Trace recorded = record_steps("--buffer-mb 8 --flush-ms 20", 2, 10);
  EXPECT_EQ(recorded.metadata().values.at("buffer_bytes_per_thread"), "8388608");
  EXPECT_EQ(recorded.metadata().values.at("flush_interval_ms"), "20");
  // No window asked for: the whole run, with no window recorded.
  EXPECT_EQ(steps_kept(recorded, 2), 2u);
  EXPECT_FALSE(trace::capture_window(recorded.metadata()).has_value());
}

TEST(RecordWindow, MissingStepsCaptureNothingWithAWarning) {
  const auto path = temporary_trace_path();
  const testing::CommandResult result =
      testing::run_command(record_command(path, "--steps 7:9", "steps 2 10"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("the capture window never opened"), std::string::npos)
      << result.output;
  const trace::Trace recorded = trace::load_trace(path);
  EXPECT_EQ(recorded.counts().spans, 0u);
  const trace::CaptureWindow window = window_of(recorded);
  EXPECT_EQ(window.begin, window.end);
}

TEST(RecordWindow, EngineStepsCaptureThoseStepsAndAnalyzeCountsOnlyThem) {
  TSCOPE_REQUIRE_FILE(testing::fashion_mnist_dir());
  const auto path = temporary_trace_path();
  const testing::CommandResult recorded = testing::run_command(
      std::string(TSCOPE_CLI) + " record -o " + testing::quoted(path) + " --steps 2:3 -- " +
      testing::quoted(testing::built_program("train_fashion_mnist")) + " --data-dir " +
      testing::quoted(testing::fashion_mnist_dir()) + " --steps 5");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.output;
  const trace::Trace trace = trace::load_trace(path);
  EXPECT_EQ(spans_named(trace, "step 2").size(), 1u);
  EXPECT_EQ(spans_named(trace, "step 3").size(), 1u);
  EXPECT_TRUE(spans_named(trace, "step 1").empty());
  EXPECT_TRUE(spans_named(trace, "step 4").empty());
  expect_spans_inside(trace, window_of(trace));
  expect_analyzed_steps(path, 2);
}

TEST(RecordWindow, MalformedWindowsAreRejectedBeforeTheProgramRuns) {
  const auto path = temporary_trace_path();
  const std::pair<const char*, const char*> cases[] = {
      {"--steps 4", "not a range"},     {"--capture-range forward", "nvtx:NAME"},
      {"--delay -1", "not a duration"}, {"--duration 2x", "not a duration"},
      {"--buffer-mb 0", "--buffer-mb"},
  };
  for (const auto& [options, message] : cases) {
    const testing::CommandResult result =
        testing::run_command(record_command(path, options, "steps 1 1"));
    EXPECT_NE(result.exit_code, 0) << options;
    EXPECT_NE(result.output.find(message), std::string::npos) << options << ": " << result.output;
    EXPECT_FALSE(std::filesystem::exists(path)) << options;
  }
}

}  // namespace
}  // namespace tscope::profiler
