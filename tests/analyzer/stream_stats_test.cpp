// Per-stream idle breakdown and launch-queue length against Holistic Trace Analysis'
// idle_time_breakdown and queue_length_summary in ../shared/data/traces/hta_reference.json (HTA
// 0.6.1 on the same real traces; include_last mode, or exact_ns where timestamps have fractional
// microseconds), and the full-queue finding on a trace built with a known answer.

#include "tscope/analyzer/stream_stats.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

using tscope::testing::shared_data_path;

// Ours beside HTA's, stream by stream (HTA names a stream by its CUDA stream id).
void expect_streams_match_hta(const std::string& relative, const std::string& reference_key,
                              const std::string& mode, std::size_t stream_count) {
  const auto reference_path = shared_data_path("traces/hta_reference.json");
  const auto path = shared_data_path("traces/" + relative);
  TSCOPE_REQUIRE_FILE(reference_path);
  TSCOPE_REQUIRE_FILE(path);
  simdjson::dom::parser parser;
  const simdjson::dom::element modes =
      parser.load(reference_path.string())["traces"][reference_key];
  const simdjson::dom::element idle = modes[mode]["idle_time_breakdown"]["0"]["per_stream"];
  const simdjson::dom::element queue = modes[mode]["queue_length_summary"]["0"];
  const trace::Trace trace = trace::read_chrome_json(path);
  const AnalysisContext context(trace, {});
  const std::vector<StreamStats> streams = compute_stream_stats(context);
  ASSERT_EQ(streams.size(), stream_count);
  const double steps = context.step_count();
  for (const StreamStats& stream : streams) {
    const std::string id = std::to_string(trace.track(stream.track).info().stream);
    SCOPED_TRACE("stream " + id);
    const simdjson::dom::element hta_idle = idle[id];
    EXPECT_NEAR(stream.idle.host_wait_ns * steps, double(hta_idle["host_wait_us"]) * 1e3, 10);
    EXPECT_EQ(stream.idle.host_wait_count, std::uint64_t(hta_idle["host_wait_count"]));
    EXPECT_NEAR(stream.idle.other_ns * steps, double(hta_idle["other_us"]) * 1e3, 10);
    EXPECT_EQ(stream.idle.other_count, std::uint64_t(hta_idle["other_count"]));
    double kernel_wait_us = 0;
    std::uint64_t kernel_wait_count = 0;
    // HTA leaves the kernel wait out for a stream that has none.
    if (hta_idle["kernel_wait_us"].get(kernel_wait_us) == simdjson::SUCCESS) {
      kernel_wait_count = std::uint64_t(hta_idle["kernel_wait_count"]);
    }
    EXPECT_NEAR(stream.idle.kernel_wait_ns * steps, kernel_wait_us * 1e3, 10);
    EXPECT_EQ(stream.idle.kernel_wait_count, kernel_wait_count);
    const simdjson::dom::element hta_queue = queue[id];
    EXPECT_EQ(stream.queue.samples, std::uint64_t(hta_queue["count"]));
    EXPECT_EQ(stream.queue.max, double(hta_queue["max"]));
    // Launches and kernel starts at one microsecond tie; HTA's sort orders ties its own way,
    // which moves the mean over samples slightly.
    EXPECT_NEAR(stream.queue.sample_mean, double(hta_queue["mean"]),
                1e-4 * double(hta_queue["mean"]));
    EXPECT_EQ(stream.queue.full_ns, 0);
    EXPECT_LE(stream.idle.intervals.p50_ns, stream.idle.intervals.p95_ns);
    EXPECT_LE(stream.idle.intervals.p95_ns, stream.idle.intervals.max_ns);
  }
}

TEST(StreamStatsTest, V100StreamMatchesHta) {
  expect_streams_match_hta(
      "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
      "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz", "include_last",
      1);
}

TEST(StreamStatsTest, NcclTraceStreamsMatchHta) {
  expect_streams_match_hta("kineto/hta_nccl_data_a100_rank0_of2.json.gz",
                           "kineto/hta_nccl_data_a100_rank0_of2.json.gz", "exact_ns", 2);
}

TEST(StreamStatsTest, SampledRankFiveStreamsMatchHta) {
  expect_streams_match_hta("multirank/sampled_rank-0.json.gz", "multirank/sampled_rank-*.json.gz",
                           "include_last", 5);
}

TEST(StreamStatsTest, Mi210StreamMatchesHta) {
  expect_streams_match_hta("kineto/tracelens_mi210_gpu_only.json.gz",
                           "kineto/tracelens_mi210_gpu_only.json.gz", "exact_ns", 1);
}

TEST(StreamStatsTest, V100IdleIntervalsHaveTheirPercentiles) {
  const auto path = shared_data_path(
      "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  const std::vector<StreamStats> streams = compute_stream_stats(AnalysisContext(trace, {}));
  ASSERT_EQ(streams.size(), 1u);
  // Python over the 9,096 activities of stream 7 in start order: gaps over zero.
  const IdleIntervalStats& gaps = streams[0].idle.intervals;
  EXPECT_EQ(gaps.count, 8'921u);
  EXPECT_DOUBLE_EQ(gaps.p50_ns, 1'000);
  EXPECT_DOUBLE_EQ(gaps.p95_ns, 44'000);
  EXPECT_DOUBLE_EQ(gaps.max_ns, 62'339'000);
}

// 2,000 kernels of 50 µs from 2 ms on; the host launches the first 1,024 at 1 µs each, then each
// further launch call blocks until a kernel starts and frees a slot.
trace::Trace full_queue_trace() {
  tscope::testing::SyntheticTrace trace;
  constexpr trace::TimeNs kUs = 1'000;
  constexpr trace::TimeNs kFirstKernel = 2'000 * kUs;
  constexpr trace::TimeNs kKernel = 50 * kUs;
  trace.step("step 0", 0, 100'000 * kUs, 1);
  trace::TimeNs host = 0;
  for (trace::TimeNs i = 0; i < 2'000; ++i) {
    const trace::TimeNs returns =
        i < 1'024 ? host + kUs : kFirstKernel + (i - 1'024) * kKernel + kUs;
    trace.kernel(host, returns, kFirstKernel + i * kKernel, kFirstKernel + (i + 1) * kKernel);
    host = returns;
  }
  return trace.finish();
}

TEST(StreamStatsTest, HostBlockedOnAFullQueueIsARankedFindingWithItsCost) {
  const trace::Trace trace = full_queue_trace();
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_full_launch_queue(context);
  ASSERT_EQ(findings.size(), 1u);
  const Finding& finding = findings[0];
  EXPECT_EQ(finding.kind, "launch_queue_full");
  // At or above 1,024 from the 1,024th launch (1,023 µs) until kernel 976 starts (50,800 µs).
  EXPECT_DOUBLE_EQ(finding.metric("full_queue_ns_per_step"), 49'777'000);
  EXPECT_DOUBLE_EQ(finding.cost.time_per_step_ns, 49'777'000);
  EXPECT_NEAR(finding.cost.share_of_step, 0.49777, 1e-9);
  EXPECT_EQ(finding.severity, Severity::kHigh);
  EXPECT_EQ(finding.metric("max_queue_length"), 1'025);
  EXPECT_EQ(finding.metric("blocked_launches"), 976);  // launches 1,024 to 1,999
  EXPECT_EQ(finding.evidence.size(), 20u);
  const std::vector<StreamStats> streams = compute_stream_stats(context);
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_DOUBLE_EQ(streams[0].queue.full_ns, 49'777'000);
  EXPECT_EQ(streams[0].idle.kernel_wait_count, 1'999u);  // back to back
  EXPECT_EQ(streams[0].idle.intervals.count, 0u);
}

TEST(StreamStatsTest, KernelWaitIsAGapUnderThirtyMicrosecondsStrictly) {
  // Three kernels launched well ahead: 29.999 µs then exactly 30 µs apart.
  tscope::testing::SyntheticTrace trace;
  trace.step("step 0", 0, 2'000'000, 1);
  trace.kernel(100'000, 101'000, 1'000'000, 1'100'000);
  trace.kernel(200'000, 201'000, 1'129'999, 1'200'000);
  trace.kernel(300'000, 301'000, 1'230'000, 1'300'000);
  const trace::Trace built = trace.finish();
  const AnalysisContext context(built, {});
  const std::vector<StreamStats> streams = compute_stream_stats(context);
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0].idle.kernel_wait_count, 1u);
  EXPECT_DOUBLE_EQ(streams[0].idle.kernel_wait_ns, 29'999);
  EXPECT_EQ(streams[0].idle.other_count, 1u);
  EXPECT_DOUBLE_EQ(streams[0].idle.other_ns, 30'000);
  EXPECT_EQ(streams[0].idle.intervals.count, 2u);
  EXPECT_DOUBLE_EQ(streams[0].idle.intervals.max_ns, 30'000);
  const TimeBreakdown time = compute_time_breakdown(context);
  EXPECT_DOUBLE_EQ(time.gpu_idle_kernel_wait_ns, 29'999);
  // The 30 µs gap and the 700 µs after the last kernel.
  EXPECT_DOUBLE_EQ(time.gpu_idle_other_ns, 730'000);
}

TEST(StreamStatsTest, NoFindingWithoutAFullQueue) {
  const auto path = shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  EXPECT_TRUE(find_full_launch_queue(AnalysisContext(trace, {})).empty());  // longest queue 10
}

}  // namespace
}  // namespace tscope::analyzer
