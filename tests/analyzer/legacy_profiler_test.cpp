// A trace of PyTorch's legacy autograd profiler (no "cat", pid "CPU functions"), the shape that
// builds without Kineto write: tests/data/legacy_autograd_profiler_mlp.json.gz, made by
// tests/data/make_legacy_autograd_trace.py with Debian's python3-torch 1.13. Expected figures
// come from the raw JSON with Python (json, gzip): the same priority split over each step.

#include <gtest/gtest.h>

#include <algorithm>

#include "test_data.h"
#include "tscope/analyzer/input_stalls.h"
#include "tscope/analyzer/op_breakdown.h"
#include "tscope/analyzer/time_breakdown.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

trace::Trace read_legacy_trace() {
  return trace::read_chrome_json(
      tscope::testing::repo_data_path("legacy_autograd_profiler_mlp.json.gz"));
}

TEST(LegacyProfilerTest, ProfilerStepRangesAreTheSteps) {
  const trace::Trace trace = read_legacy_trace();
  const AnalysisContext context(trace, {});
  const StepSet& steps = context.steps();
  ASSERT_EQ(steps.steps.size(), 6u);
  EXPECT_FALSE(steps.whole_trace);
  EXPECT_EQ(steps.steps.front().name, "ProfilerStep#0");
  EXPECT_EQ(steps.steps.back().name, "ProfilerStep#5");
  EXPECT_NEAR(steps.mean_ns(), 25'833'166.7, 1);
}

TEST(LegacyProfilerTest, HostTimeSplitsIntoDataWaitOptimizerAndOps) {
  const trace::Trace trace = read_legacy_trace();
  const TimeBreakdown time = compute_time_breakdown(AnalysisContext(trace, {}));
  EXPECT_FALSE(time.has_gpu);
  // enumerate(DataLoader)#... ranges, Optimizer.step#SGD.step and Optimizer.zero_grad#..., and
  // aten::* / autograd ops, each instant counted once in that order.
  EXPECT_NEAR(time.host_data_wait_ns, 7'801'000, 1);
  EXPECT_NEAR(time.host_optimizer_ns, 158'333.3, 1);
  EXPECT_NEAR(time.host_ops_ns, 8'735'666.7, 1);
  EXPECT_NEAR(time.host_other_ns, 9'138'166.7, 1);
}

TEST(LegacyProfilerTest, OperatorsAreRankedAndTheLoaderWaitIsAFinding) {
  const trace::Trace trace = read_legacy_trace();
  const AnalysisContext context(trace, {});
  const OpBreakdown breakdown = compute_op_breakdown(context);
  ASSERT_FALSE(breakdown.ops.empty());
  for (const NameStats& op : breakdown.ops) {
    EXPECT_TRUE(op.name.starts_with("aten::") || op.name.starts_with("autograd::") ||
                op.name.starts_with("torch::autograd::") || op.name.starts_with("Optimizer.") ||
                op.name.ends_with("Backward0"))
        << op.name;
  }
  const std::vector<Finding> findings = find_input_stalls(context);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "input_bound");
  EXPECT_EQ(findings[0].severity, Severity::kHigh);  // 7.80 ms of a 25.83 ms step: 30.2%
  EXPECT_NEAR(findings[0].metric("input_share"), 7'801'000 / 25'833'166.7, 1e-6);
}

}  // namespace
}  // namespace tscope::analyzer
