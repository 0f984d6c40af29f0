// Findings' gains from the replay and the fix plan: a finding with a fix gains what the replay of
// that fix saves; findings with one fix are one entry of the plan; applied in turn, the fixes
// never promise more than the step, and on the real traces of ../shared every replayed gain and
// every step of the plan lies between the GPU's work and the measured step.

#include "tscope/analyzer/fix_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "real_traces.h"
#include "synthetic_trace.h"
#include "tscope/analyzer/report.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

constexpr trace::TimeNs kUs = 1'000;

// Four 100 µs steps, each waiting 40 µs for its batch, then running 60 µs of ops.
trace::Trace input_bound_steps() {
  testing::SyntheticTrace synthetic;
  for (trace::TimeNs step = 0; step < 4; ++step) {
    const trace::TimeNs start = step * 100 * kUs;
    synthetic.step("step " + std::to_string(step + 1), start, start + 100 * kUs, 32);
    synthetic.span(synthetic.main(), "loader wait", Category::kDataWait, start, start + 40 * kUs);
    synthetic.span(synthetic.main(), "forward", Category::kCpuOp, start + 40 * kUs,
                   start + 100 * kUs);
  }
  return synthetic.finish();
}

TEST(FixPlanTest, InputBoundGainIsTheReplayedSavingOfRemovingTheWait) {
  const trace::Trace trace = input_bound_steps();
  const Report report = run_report(trace, {});
  const Finding* input = find_kind(report.findings, "input_bound");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->gain_basis, GainBasis::kReplay);
  EXPECT_EQ(input->fix, std::vector<std::string>{"input-wait*0"});
  EXPECT_DOUBLE_EQ(input->estimated_gain_ns_per_step, 40 * kUs);
  ASSERT_EQ(report.fix_plan.fixes.size(), 1u);
  EXPECT_EQ(report.fix_plan.fixes[0].kinds, std::vector<std::string>{"input_bound"});
  EXPECT_DOUBLE_EQ(report.fix_plan.measured_step_ns, 100 * kUs);
  EXPECT_DOUBLE_EQ(report.fix_plan.fixes[0].step_after_ns, 60 * kUs);
}

TEST(FixPlanTest, TraceWithoutStepsIsReplayedAsOneStep) {
  testing::SyntheticTrace synthetic;
  synthetic.span(synthetic.main(), "loader wait", Category::kDataWait, 0, 40 * kUs);
  synthetic.span(synthetic.main(), "forward", Category::kCpuOp, 40 * kUs, 100 * kUs);
  const trace::Trace trace = synthetic.finish();
  const Report report = run_report(trace, {});
  const Finding* input = find_kind(report.findings, "input_bound");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->gain_basis, GainBasis::kReplay);
  EXPECT_DOUBLE_EQ(input->estimated_gain_ns_per_step, 40 * kUs);
  ASSERT_EQ(report.fix_plan.fixes.size(), 1u);
  EXPECT_DOUBLE_EQ(report.fix_plan.fixes[0].step_after_ns, 60 * kUs);
}

// The plan's invariants on a real trace: each fix leaves a step no longer than the one before it
// and no shorter than nothing; each replayed gain at most the step; findings with one fix in one
// entry.
void expect_plan_adds_up(const trace::Trace& trace) {
  const Report report = run_report(trace, {});
  const FixPlan& plan = report.fix_plan;
  ASSERT_GT(plan.replayed_steps, 0u);
  double before = plan.measured_step_ns;
  for (const PlannedFix& fix : plan.fixes) {
    EXPECT_GE(fix.gain_alone_ns, 0) << fix.title;
    EXPECT_LE(fix.gain_alone_ns, plan.measured_step_ns) << fix.title;
    EXPECT_GE(fix.step_after_ns, 0) << fix.title;
    EXPECT_LE(fix.step_after_ns, before * (1 + 1e-9)) << fix.title;
    before = fix.step_after_ns;
    for (const PlannedFix& other : plan.fixes)
      EXPECT_TRUE(&other == &fix || other.edits != fix.edits) << fix.title;
  }
  for (const Finding& finding : report.findings) {
    if (finding.gain_basis != GainBasis::kReplay) continue;
    EXPECT_FALSE(finding.fix.empty()) << finding.kind;
    EXPECT_GE(finding.estimated_gain_ns_per_step, 0) << finding.kind;
    EXPECT_LE(finding.estimated_gain_ns_per_step, plan.measured_step_ns) << finding.kind;
  }
}

TEST(FixPlanRealTraceTest, ResNet50V100LaunchAndHostBoundAreOneFixBeforeTheInputWait) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  expect_plan_adds_up(trace);
  const Report report = run_report(trace, {});
  ASSERT_FALSE(report.fix_plan.fixes.empty());
  const std::vector<std::string>& first = report.fix_plan.fixes.front().kinds;
  EXPECT_NE(std::find(first.begin(), first.end(), "launch_bound"), first.end());
  EXPECT_NE(std::find(first.begin(), first.end(), "critical_path_host_bound"), first.end());
}

TEST(FixPlanRealTraceTest, AlexNetA100AsOneStep) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_critical_path_alexnet_a100.json.gz");
  expect_plan_adds_up(trace);
}

TEST(FixPlanRealTraceTest, StepAnnotationsGp100AsOneStep) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  expect_plan_adds_up(trace);
}

TEST(FixPlanRealTraceTest, HipGraphReplayMi300xAsOneStep) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/tracelens_mi300x_vllm_piecewise_hipgraph_replay.json.gz");
  expect_plan_adds_up(trace);
}

TEST(FixPlanRealTraceTest, NsightTwoH100AsOneStep) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "nsys/nsysai_h100x2_sp2_fa3_1s_window_nvtx.sqlite");
  expect_plan_adds_up(trace);
}

TEST(FixPlanRealTraceTest, NcclRank0A100) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  expect_plan_adds_up(trace);
}

TEST(FixPlanRealTraceTest, MultiRankSample) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "multirank/sampled_rank-0.json.gz");
  expect_plan_adds_up(trace);
}

}  // namespace
}  // namespace tscope::analyzer
