// Analyses on real traces from PyTorch's profiler. Expected figures were computed independently
// from the raw JSON with a short Python script (see docs/analyzer.md, "Verification").

#include <gtest/gtest.h>

#include <algorithm>

#include "real_traces.h"
#include "test_data.h"
#include "tscope/analyzer/copies.h"
#include "tscope/analyzer/launch.h"
#include "tscope/analyzer/leaks.h"
#include "tscope/analyzer/memory.h"
#include "tscope/analyzer/op_breakdown.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/trace_io.h"

namespace tscope::analyzer {
namespace {

using tscope::testing::shared_data_path;

TEST(RealTraceTest, Gp100HasTenPageableHostToDeviceCopiesEachFollowedByAStreamSync) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_copy_and_sync_problems(context);

  const Finding* pageable = find_kind(findings, "pageable_copy");
  ASSERT_NE(pageable, nullptr);
  EXPECT_EQ(pageable->metric("copies"), 10);
  EXPECT_EQ(pageable->metric("bytes"), 60);  // five 8-byte and five 4-byte copies
  EXPECT_EQ(pageable->metric("followed_by_sync"), 10);
  EXPECT_EQ(pageable->evidence.size(), 10u);

  const Finding* synchronous = find_kind(findings, "synchronous_copy");
  ASSERT_NE(synchronous, nullptr);
  EXPECT_EQ(synchronous->metric("copies"), 10);
  // 20 events: each copy and the cudaStreamSynchronize after it.
  ASSERT_EQ(synchronous->evidence.size(), 20u);
  const trace::EventRef sync = synchronous->evidence[1];
  EXPECT_EQ(trace.string(trace.track(sync.track).spans().name[sync.index]),
            "cudaStreamSynchronize");
}

TEST(RealTraceTest, Gp100WithoutStepRangesIsOneStepWithItsGpuTimeSplit) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  const AnalysisContext context(trace, {});
  EXPECT_TRUE(context.steps().whole_trace);
  const TimeBreakdown time = compute_time_breakdown(context);
  EXPECT_DOUBLE_EQ(time.step_ns, 10'138'000);
  EXPECT_DOUBLE_EQ(time.gpu_compute_ns, 290'000);  // 130 kernels on one stream
  EXPECT_DOUBLE_EQ(time.gpu_copy_ns, 1'000);
  const double gpu_parts = time.gpu_compute_ns + time.gpu_communication_ns + time.gpu_copy_ns +
                           time.gpu_memset_ns + time.gpu_idle_host_wait_ns +
                           time.gpu_idle_kernel_wait_ns + time.gpu_idle_other_ns;
  EXPECT_NEAR(gpu_parts, time.step_ns, 1);
  const double host_parts = time.host_data_wait_ns + time.host_sync_ns + time.host_optimizer_ns +
                            time.host_ops_ns + time.host_other_ns;
  EXPECT_NEAR(host_parts, time.step_ns, 1);
  EXPECT_GT(time.host_optimizer_ns, 0);
  EXPECT_GT(time.host_sync_ns, 0);
}

TEST(RealTraceTest, V100StepsAreItsSixProfilerSteps) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const StepSet& steps = context.steps();
  ASSERT_EQ(steps.steps.size(), 6u);
  EXPECT_EQ(steps.steps.front().name, "ProfilerStep#5");
  EXPECT_EQ(steps.steps.back().name, "ProfilerStep#10");
  EXPECT_NEAR(steps.mean_ns(), 174'829'333.3, 1);
  EXPECT_DOUBLE_EQ(steps.min_ns(), 164'261'000);
  EXPECT_DOUBLE_EQ(steps.max_ns(), 181'259'000);
  EXPECT_NEAR(steps.stddev_ns(), 5'698'040.6, 1);
}

TEST(RealTraceTest, V100StepFilterKeepsOnlyMatchingSteps) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  AnalysisOptions options;
  options.step_filter = "#(5|6)$";
  const AnalysisContext context(trace, options);
  EXPECT_EQ(context.steps().steps.size(), 2u);
}

TEST(RealTraceTest, V100MemoryPeakComesFromItsAddresslessMemoryEvents) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_memory_pressure(context);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "memory_peak");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
  // Net bytes allocated since the trace began, replayed in time order: peak 2.62 GiB.
  EXPECT_EQ(findings[0].metric("peak_live_bytes"), 2'810'904'320.0);
}

TEST(RealTraceTest, V100MemoryPeakOnTheGpuHasItsHeadroomAgainstDeviceProperties) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const Finding peak = find_memory_pressure(context).at(0);
  // GPU 0's [memory] events (Device Type 1, Device Id 0) summed in time order peak at 2791636480
  // bytes; deviceProperties gives device 0 totalGlobalMem 34084028416.
  EXPECT_EQ(peak.metric("device_0_peak_bytes"), 2'791'636'480.0);
  EXPECT_EQ(peak.metric("device_0_total_bytes"), 34'084'028'416.0);
  EXPECT_EQ(peak.metric("device_0_headroom_bytes"), 34'084'028'416.0 - 2'791'636'480.0);
  EXPECT_NE(peak.explanation.find("GPU 0 peaks at 2.60 GiB of its 31.7 GiB"), std::string::npos)
      << peak.explanation;
}

TEST(RealTraceTest, V100MemoryFlatAtStepBoundariesIsNoLeak) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  for (const Finding& finding : find_leaks(context))
    EXPECT_NE(finding.kind, "leak");
}

TEST(RealTraceTest, NcclTraceSplitsGpuTimeIntoComputeAndCommunication) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  const AnalysisContext context(trace, {});
  ASSERT_EQ(context.steps().steps.size(), 3u);
  const TimeBreakdown time = compute_time_breakdown(context);
  EXPECT_NEAR(time.step_ns, 222'368'446, 1'000);
  EXPECT_NEAR(time.gpu_compute_ns, 38'551'948, 1'000);
  EXPECT_NEAR(time.gpu_communication_ns, 13'186'489, 1'000);
  EXPECT_NEAR(time.gpu_copy_ns, 641'397, 1'000);
  EXPECT_NEAR(time.gpu_memset_ns, 120'193, 1'000);
}

TEST(RealTraceTest, V100TopKernelsAreRankedByTotalTimeWithPercentiles) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const OpBreakdown breakdown = compute_op_breakdown(context);
  ASSERT_FALSE(breakdown.kernels.empty());
  const NameStats& top = breakdown.kernels.front();
  EXPECT_TRUE(
      top.name.starts_with("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>"));
  EXPECT_EQ(top.count, 162u);
  EXPECT_DOUBLE_EQ(top.total_ns, 80'756'000);
  EXPECT_DOUBLE_EQ(top.p50_ns, 405'000);
  EXPECT_DOUBLE_EQ(top.p95_ns, 883'000);
  for (std::size_t i = 1; i < breakdown.kernels.size(); ++i) {
    EXPECT_GE(breakdown.kernels[i - 1].total_ns, breakdown.kernels[i].total_ns);
  }
  for (const NameStats& entry : breakdown.kernels) {
    EXPECT_LE(entry.p50_ns, entry.p95_ns);
    EXPECT_NEAR(entry.mean_ns * static_cast<double>(entry.count), entry.total_ns, 1);
  }
}

TEST(RealTraceTest, NsysSaxpyCopiesArePageableAndBlocking) {
  const auto path = shared_data_path("traces/nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::load_trace(path);
  const std::vector<Finding> findings = find_copy_and_sync_problems(AnalysisContext(trace, {}));
  const Finding* pageable = find_kind(findings, "pageable_copy");
  ASSERT_NE(pageable, nullptr);
  // 10 host-to-device copies of 262,144,000 bytes and 5 device-to-host copies of 262,144,000.
  EXPECT_EQ(pageable->metric("copies"), 15);
  EXPECT_EQ(pageable->metric("bytes"), 3'932'160'000.0);
  const Finding* synchronous = find_kind(findings, "synchronous_copy");
  ASSERT_NE(synchronous, nullptr);
  EXPECT_EQ(synchronous->metric("copies"), 15);  // all issued by cudaMemcpy
  EXPECT_EQ(synchronous->metric("followed_by_sync"), 0);
}

}  // namespace
}  // namespace tscope::analyzer
