// `tscope record` points CUDA programs at the injection library through CUDA_INJECTION64_PATH.
// On a machine without a driver or GPU (as here), a program that never initialises CUDA is
// recorded host-only as before, and one whose CUDA initialisation calls the injection gets one
// message saying GPU capture is off (also noted in its trace), runs on and keeps its exit code.

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <string_view>

#include "cupti/injection_boundary.h"
#include "trace_queries.h"
#include "tscope/profiler/gpu_capture.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::profiler {
namespace {

using testing::quoted;
using testing::run_tscope;
using testing::spans_named;
using testing::temporary_trace_path;

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

std::size_t instants_starting_with(const trace::Trace& recorded, std::string_view prefix) {
  std::size_t count = 0;
  for (const trace::Track& track : recorded.tracks()) {
    for (const trace::StringId name : track.instants().name) {
      count += recorded.string(name).starts_with(prefix);
    }
  }
  return count;
}

TEST(CudaInjection, RecordNamesTheInjectionLibraryInCudaInjection64Path) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result = run_tscope(
      "record -o " + quoted(output) + " -- /bin/sh -c 'echo \"cuda=$CUDA_INJECTION64_PATH\"'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("cuda=/"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("libtscope_inject.so\n"), std::string::npos) << result.output;
}

TEST(CudaInjection, ProgramThatNeverInitialisesCudaIsRecordedHostOnlyWithoutAMessage) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result =
      run_tscope("record -o " + quoted(output) + " -- " + TSCOPE_NVTX_SAMPLE_PROGRAM + " run 3");
  EXPECT_EQ(result.exit_code, 3) << result.output;
  EXPECT_EQ(result.output.find("GPU capture"), std::string::npos) << result.output;
  const trace::Trace recorded = trace::load_trace(output);
  EXPECT_EQ(spans_named(recorded, "outer").size(), 1u);
}

TEST(CudaInjection, InjectionWithoutDriverSaysOnceThatGpuCaptureIsOffAndTheProgramRunsOn) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result =
      run_tscope("record -o " + quoted(output) + " -- " + TSCOPE_CUDA_INJECTION_PROBE);
  EXPECT_EQ(result.exit_code, 5) << result.output;
  EXPECT_EQ(occurrences(result.output, "tscope: GPU capture is off"), 1u) << result.output;
  EXPECT_NE(result.output.find("the program runs on"), std::string::npos) << result.output;
  const trace::Trace recorded = trace::load_trace(output);
  EXPECT_EQ(recorded.metadata().source_format, "tscope-profiler");
  EXPECT_EQ(recorded.metadata().values.count("gpu_capture"), 0u);
  EXPECT_EQ(instants_starting_with(recorded, "GPU capture is off: "), 1u);
}

TEST(CudaInjection, InjectionOutsideARecordingIsSilent) {
  const std::string command = std::string("env CUDA_INJECTION64_PATH=") + TSCOPE_BINARY_DIR +
                              "/lib/libtscope_inject.so " + TSCOPE_CUDA_INJECTION_PROBE + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string printed;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr)
    printed += buffer;
  const int status = pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 5) << printed;
  EXPECT_EQ(printed.find("tscope"), std::string::npos) << printed;
}

TEST(InjectionBoundary, StepThatCompletesReportsNothing) {
  bool ran = false;
  EXPECT_EQ(injection_step_failure([&] { ran = true; }), std::nullopt);
  EXPECT_TRUE(ran);
}

TEST(InjectionBoundary, ExceptionOtherThanGpuCaptureErrorStopsAtTheBoundaryWithItsMessage) {
  EXPECT_EQ(injection_step_failure([] { throw std::bad_alloc(); }), std::bad_alloc().what());
  EXPECT_EQ(injection_step_failure([] { throw GpuCaptureError("no driver"); }), "no driver");
}

TEST(InjectionBoundary, ThrownValueThatIsNoExceptionStopsAtTheBoundaryToo) {
  EXPECT_EQ(injection_step_failure([] { throw 42; }), "an exception that is not a std::exception");
}

TEST(GpuTraceSelection, DefaultIsRuntimeCallsAndWaitsWithoutDriverCallsOrOverhead) {
  const GpuTraceSelection selection = parse_gpu_trace(kDefaultGpuTrace);
  EXPECT_TRUE(selection.runtime);
  EXPECT_TRUE(selection.synchronization);
  EXPECT_FALSE(selection.driver);
  EXPECT_FALSE(selection.overhead);
  EXPECT_EQ(gpu_trace_text(selection), kDefaultGpuTrace);
}

TEST(GpuTraceSelection, ListSelectsExactlyItsRecordsAndNoneSelectsNothing) {
  const GpuTraceSelection selection = parse_gpu_trace("overhead,driver");
  EXPECT_FALSE(selection.runtime);
  EXPECT_FALSE(selection.synchronization);
  EXPECT_TRUE(selection.driver);
  EXPECT_TRUE(selection.overhead);
  EXPECT_EQ(gpu_trace_text(selection), "driver,overhead");
  EXPECT_EQ(gpu_trace_text(parse_gpu_trace("none")), "none");
}

TEST(GpuTraceSelection, UnknownOrEmptyEntryIsAnErrorNamingTheKnownOnes) {
  EXPECT_THROW(parse_gpu_trace("runtime,kernels"), GpuCaptureError);
  EXPECT_THROW(parse_gpu_trace("runtime,,sync"), GpuCaptureError);
  try {
    parse_gpu_trace("nvtx");
    FAIL() << "nvtx was accepted";
  } catch (const GpuCaptureError& error) {
    EXPECT_NE(std::string(error.what()).find("'nvtx'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("runtime, driver, sync, overhead"), std::string::npos)
        << error.what();
  }
}

TEST(CudaInjection, RecordPassesTheDefaultGpuTraceSelectionToTheProgram) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result = run_tscope(
      "record -o " + quoted(output) + " -- /bin/sh -c 'echo \"trace=$TSCOPE_GPU_TRACE.\"'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("trace=runtime,sync."), std::string::npos) << result.output;
}

TEST(CudaInjection, RecordPassesTheGpuTraceSelectionOfMinusT) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result =
      run_tscope("record -t driver,overhead -o " + quoted(output) +
                 " -- /bin/sh -c 'echo \"trace=$TSCOPE_GPU_TRACE.\"'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("trace=driver,overhead."), std::string::npos) << result.output;
}

TEST(CudaInjection, RecordRefusesAnUnknownGpuTraceRecordBeforeStartingTheProgram) {
  const auto output = temporary_trace_path();
  const testing::CommandResult result =
      run_tscope("record -t runtime,osrt -o " + quoted(output) + " -- /bin/sh -c 'echo started'");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("unknown GPU trace record 'osrt'"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("started"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace tscope::profiler
