// GPU work attributed to the step of the host call that launched it, on the real ResNet-50 V100
// trace, and by overlap when the same trace is read without its launch records. Expected figures
// come from the raw JSON with Python (json, gzip): the six ProfilerStep# ranges, the 9,096
// kernels, copies and memsets (one stream, no two overlapping), their correlation ids.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "test_data.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/trace/chrome_json_input.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

using tscope::testing::shared_data_path;

constexpr const char* kV100 =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";

double gpu_busy_ns(const TimeBreakdown& time) {
  return time.gpu_compute_ns + time.gpu_communication_ns + time.gpu_copy_ns + time.gpu_memset_ns;
}

// The trace as the profiler wrote it but without the runtime calls and their flow arrows: GPU
// work with no launch record, as CUDA-graph replays or work queued before capture would be.
trace::Trace read_without_launch_records(const std::filesystem::path& path) {
  const trace::ChromeJsonInput input = trace::ChromeJsonInput::read_file(path);
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.parse(input.json());
  std::string events;
  for (const simdjson::dom::element event : root["traceEvents"].get_array()) {
    std::string_view category;
    if (event["cat"].get(category) == simdjson::SUCCESS &&
        (category == "Runtime" || category == "async")) {
      continue;
    }
    events += (events.empty() ? "" : ",") + simdjson::minify(event);
  }
  return trace::read_chrome_json(
      trace::ChromeJsonInput::from_bytes("{\"traceEvents\":[" + events + "]}", path.string()));
}

TEST(GpuAttributionTest, V100WorkBelongsToTheStepThatLaunchedIt) {
  const auto path = shared_data_path(kV100);
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  const AnalysisContext context(trace, {});
  ASSERT_EQ(context.steps().steps.size(), 6u);
  const TimeBreakdown time = compute_time_breakdown(context);
  // All 9,096 activities were launched inside the six steps: 603,558 µs of GPU time, of which
  // 567 activities (14,970 µs) run after the last step's host range has ended.
  EXPECT_NEAR(gpu_busy_ns(time) * 6, 603'558'000, 1);
  EXPECT_EQ(time.gpu_by_overlap_events, 0);
  EXPECT_EQ(time.gpu_by_overlap_ns, 0);
  // The six host ranges hold 1,048,976 µs; each step's work runs on into the 67-69 µs before
  // the next range (341 µs in all), and the last step's 16,236 µs past its range.
  EXPECT_NEAR(time.gpu_window_ns * 6, (1'048'976 + 341 + 16'236) * 1'000.0, 1);
  // Each step's parts add up to its GPU window but for work that crosses a step boundary (a
  // deeply queued GPU runs most of a step's kernels during the next one).
  const double gpu_parts = gpu_busy_ns(time) + time.gpu_idle_host_wait_ns +
                           time.gpu_idle_kernel_wait_ns + time.gpu_idle_other_ns;
  EXPECT_NEAR(gpu_parts, time.gpu_window_ns, 0.02 * time.gpu_window_ns);
}

TEST(GpuAttributionTest, V100WithoutLaunchRecordsFallsBackToOverlapAndSaysSo) {
  const auto path = shared_data_path(kV100);
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = read_without_launch_records(path);
  const AnalysisContext context(trace, {});
  ASSERT_EQ(context.steps().steps.size(), 6u);
  const TimeBreakdown time = compute_time_breakdown(context);
  // 7,893 activities overlap a step's host range; clipped to the ranges they hold 587,642 µs.
  EXPECT_EQ(time.gpu_by_overlap_events, 7'893);
  EXPECT_NEAR(time.gpu_by_overlap_ns * 6, 587'642'000, 1);
  EXPECT_NEAR(gpu_busy_ns(time) * 6, 587'642'000, 1);
  // Nothing was launched in a step, so no GPU window reaches past its host range.
  EXPECT_NEAR(time.gpu_window_ns * 6, 1'048'976'000, 1);
}

}  // namespace
}  // namespace tscope::analyzer
