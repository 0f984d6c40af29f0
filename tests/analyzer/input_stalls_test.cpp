// Input-bound steps on traces with known waits, copies and loader work.

#include "tscope/analyzer/input_stalls.h"

#include <gtest/gtest.h>

#include "synthetic_trace.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using tscope::testing::SyntheticTrace;

constexpr trace::TimeNs kMs = 1'000'000;

// Four 10 ms steps; each waits `wait` for its batch, then computes. One loader worker takes
// 9 ms per batch.
trace::Trace loader_bound_trace(trace::TimeNs wait) {
  SyntheticTrace trace;
  for (int step = 0; step < 4; ++step) {
    const trace::TimeNs start = step * 10 * kMs;
    trace.span(trace.main(), "step " + std::to_string(step), Category::kStep, start,
               start + 10 * kMs);
    trace.span(trace.main(), "next batch", Category::kDataWait, start, start + wait);
    trace.span(trace.main(), "forward", Category::kCpuOp, start + wait, start + 10 * kMs);
    trace.span(trace.worker(), "load batch", Category::kDataLoaderLoad, start, start + 9 * kMs);
  }
  return trace.finish();
}

TEST(InputStallsTest, InputShareIsDataWaitOverStepTime) {
  const trace::Trace trace = loader_bound_trace(3 * kMs);
  const std::vector<Finding> findings = find_input_stalls(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_DOUBLE_EQ(findings[0].metric("input_share"), 0.3);
  EXPECT_DOUBLE_EQ(findings[0].cost.time_per_step_ns, 3.0 * kMs);
  EXPECT_EQ(findings[0].severity, Severity::kHigh);
}

TEST(InputStallsTest, ShareBetweenFiveAndTwentyPercentIsMedium) {
  const trace::Trace trace = loader_bound_trace(kMs);
  const std::vector<Finding> findings = find_input_stalls(AnalysisContext(trace, {}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::kMedium);
}

TEST(InputStallsTest, NoWaitMeansNoFinding) {
  const trace::Trace trace = loader_bound_trace(0);
  EXPECT_TRUE(find_input_stalls(AnalysisContext(trace, {})).empty());
}

TEST(InputStallsTest, WorkersNeededIsLoadTimePerBatchOverComputePerStep) {
  const trace::Trace trace = loader_bound_trace(3 * kMs);
  const Finding finding = find_input_stalls(AnalysisContext(trace, {})).at(0);
  EXPECT_EQ(finding.metric("loader_workers"), 1);
  EXPECT_DOUBLE_EQ(finding.metric("load_ns_per_batch"), 9.0 * kMs);
  // 9 ms of loading per batch against 7 ms of compute per step: ceil(9 / 7) = 2 workers.
  EXPECT_EQ(finding.metric("workers_needed"), 2);
  EXPECT_NE(finding.recommendation.find("at least 2 loader workers"), std::string::npos);
}

TEST(InputStallsTest, OnlyCopiesNotHiddenByComputeCount) {
  SyntheticTrace trace;
  trace.span(trace.main(), "step 0", Category::kStep, 0, 10 * kMs);
  trace.span(trace.main(), "step 1", Category::kStep, 10 * kMs, 20 * kMs);
  for (const trace::TimeNs start : {0 * kMs, 10 * kMs}) {
    // 2 ms copy; a kernel overlaps its second half.
    trace.copy(start, start + kMs, start + 3 * kMs, 1 << 20, trace::MemoryKind::kPageable);
    trace.span(trace.gpu(), "gemm", Category::kKernel, start + 2 * kMs, start + 8 * kMs);
  }
  const trace::Trace built = trace.finish();
  const Finding finding = find_input_stalls(AnalysisContext(built, {})).at(0);
  EXPECT_DOUBLE_EQ(finding.metric("exposed_h2d_copy_ns_per_step"), 1.0 * kMs);
  EXPECT_DOUBLE_EQ(finding.metric("input_share"), 0.1);
  EXPECT_NE(finding.recommendation.find("pinned"), std::string::npos);
}

}  // namespace
}  // namespace tscope::analyzer
