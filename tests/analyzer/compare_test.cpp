// Comparing two runs: the steps, step selection and per-name totals of `tscope analyze`, and
// contributions to the step-time difference that add up to it; on built traces and on real
// Kineto traces.

#include "tscope/analyzer/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "real_traces.h"
#include "synthetic_trace.h"
#include "tscope/analyzer/errors.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/trace_builder.h"

namespace tscope::analyzer {
namespace {

using trace::Category;

struct SpanSpec {
  Category category;
  const char* name;
  trace::TimeNs start;
  trace::TimeNs end;
};

// A host thread with `steps` back-to-back steps of `step_ns`, each holding the given spans
// (times relative to the step's start); kernels go on a GPU stream.
trace::Trace training_trace(int steps, trace::TimeNs step_ns,
                            const std::vector<SpanSpec>& per_step) {
  trace::TraceBuilder builder;
  const std::uint32_t process = builder.add_process({.pid = 1, .name = builder.intern("train")});
  const std::uint32_t host = builder.add_track(
      {.kind = trace::TrackKind::kHostThread, .process = process, .thread_id = 1});
  const std::uint32_t stream = builder.add_track(
      {.kind = trace::TrackKind::kGpuStream, .process = process, .device = 0, .stream = 7});
  for (int step = 0; step < steps; ++step) {
    const trace::TimeNs base = step * step_ns;
    builder.add_span(host,
                     tscope::testing::named_span(builder, "ProfilerStep#" + std::to_string(step),
                                                 Category::kStep, base, base + step_ns));
    for (const SpanSpec& spec : per_step) {
      builder.add_span(spec.category == Category::kKernel ? stream : host,
                       tscope::testing::named_span(builder, spec.name, spec.category,
                                                   base + spec.start, base + spec.end));
    }
  }
  return builder.finalize();
}

// Three steps of a training loop that waits for the GPU: aten::linear launches gemm_kernel
// (`gemm_ns` long), aten::relu launches relu_kernel right behind it, the step synchronizes and
// ends with aten::add_. Each step lasts 50 ns + gemm_ns + 40 ns, of which gemm_ns - 130 ns wait
// for gemm_kernel (gemm_ns > 130).
trace::Trace synchronizing_trace(trace::TimeNs gemm_ns) {
  tscope::testing::SyntheticTrace trace;
  constexpr trace::TimeNs kReluNs = 40;
  for (int step = 0; step < 3; ++step) {
    const trace::TimeNs base = trace::TimeNs{step} * 1'000;
    const trace::TimeNs gpu_done = base + 20 + gemm_ns + kReluNs;
    trace.step("ProfilerStep#" + std::to_string(step), base, gpu_done + 30, 32);
    trace.span(trace.main(), "aten::linear", Category::kCpuOp, base, base + 100);
    trace.kernel(base + 10, base + 20, base + 20, base + 20 + gemm_ns);
    trace.span(trace.main(), "aten::relu", Category::kCpuOp, base + 100, base + 150);
    trace.kernel(base + 110, base + 120, base + 20 + gemm_ns, gpu_done, "cudaLaunchKernel",
                 "relu_kernel");
    trace.span(trace.main(), "cudaDeviceSynchronize", Category::kRuntimeApi, base + 150, gpu_done);
    trace.span(trace.main(), "aten::add_", Category::kCpuOp, gpu_done, gpu_done + 30);
  }
  return trace.finish();
}

Comparison compare(const trace::Trace& before, const trace::Trace& after,
                   const std::optional<std::string>& steps = {}) {
  AnalysisOptions options;
  options.step_filter = steps;
  return compare_runs(AnalysisContext(before, options), AnalysisContext(after, options));
}

const NameChange& name_change(const Comparison& comparison, const std::string& name) {
  const auto found = std::find_if(comparison.names.begin(), comparison.names.end(),
                                  [&](const NameChange& change) { return change.name == name; });
  EXPECT_NE(found, comparison.names.end()) << name;
  return *found;
}

const Contribution* contribution(const Comparison& comparison, const std::string& name) {
  const auto found = std::find_if(comparison.contributions.begin(), comparison.contributions.end(),
                                  [&](const Contribution& each) { return each.name == name; });
  return found == comparison.contributions.end() ? nullptr : &*found;
}

// Every contribution plus the unattributed time, against the difference of the mean steps.
void expect_contributions_add_up(const Comparison& comparison) {
  double sum = comparison.not_attributed_after_ns - comparison.not_attributed_before_ns;
  for (const Contribution& each : comparison.contributions)
    sum += each.change_ns();
  const double scale = std::max(comparison.before.summary.mean_ns, 1.0);
  EXPECT_NEAR(sum, comparison.step_change_ns(), scale * 1e-9);
  const TopContributions all = top_contributions(comparison, comparison.contributions.size());
  EXPECT_NEAR(all.other_ns,
              comparison.not_attributed_after_ns - comparison.not_attributed_before_ns,
              scale * 1e-9);
}

TEST(CompareTest, ExplainsASlowerStepByASlowerKernelAndAnOpCalledTwice) {
  const trace::Trace before = training_trace(
      4, 1000,
      {{Category::kCpuOp, "aten::linear", 0, 100}, {Category::kKernel, "gemm_kernel", 10, 210}});
  const trace::Trace after = training_trace(4, 1300,
                                            {{Category::kCpuOp, "aten::linear", 0, 100},
                                             {Category::kCpuOp, "aten::linear", 200, 300},
                                             {Category::kKernel, "gemm_kernel", 10, 410}});
  const Comparison comparison = compare(before, after);

  EXPECT_EQ(comparison.before.summary.count, 4u);
  EXPECT_DOUBLE_EQ(comparison.before.p50_ns, 1000.0);
  EXPECT_DOUBLE_EQ(comparison.after.p50_ns, 1300.0);
  EXPECT_DOUBLE_EQ(comparison.step_change_ns(), 300.0);

  const NameChange& kernel = name_change(comparison, "gemm_kernel");
  EXPECT_EQ(kernel.kind, WorkKind::kKernel);
  EXPECT_DOUBLE_EQ(kernel.before.time_per_step_ns, 200.0);
  EXPECT_DOUBLE_EQ(kernel.after.time_per_step_ns, 400.0);

  const NameChange& op = name_change(comparison, "aten::linear");
  EXPECT_EQ(op.kind, WorkKind::kOp);
  EXPECT_DOUBLE_EQ(op.before.calls_per_step, 1.0);
  EXPECT_DOUBLE_EQ(op.after.calls_per_step, 2.0);
}

TEST(CompareTest, NamesAreOrderedByTimeAddedPerStep) {
  const trace::Trace before = training_trace(2, 1000,
                                             {{Category::kKernel, "grows_a_little", 0, 100},
                                              {Category::kKernel, "shrinks", 100, 400},
                                              {Category::kKernel, "grows_a_lot", 400, 500}});
  const trace::Trace after = training_trace(2, 1000,
                                            {{Category::kKernel, "grows_a_little", 0, 150},
                                             {Category::kKernel, "shrinks", 150, 250},
                                             {Category::kKernel, "grows_a_lot", 250, 750}});
  const Comparison comparison = compare(before, after);
  ASSERT_EQ(comparison.names.size(), 3u);
  EXPECT_EQ(comparison.names[0].name, "grows_a_lot");
  EXPECT_EQ(comparison.names[1].name, "grows_a_little");
  EXPECT_EQ(comparison.names[2].name, "shrinks");
}

TEST(CompareTest, NamesOnOneSideOnlyAreAddedOrRemoved) {
  const trace::Trace before = training_trace(1, 1000, {{Category::kKernel, "old_kernel", 0, 100}});
  const trace::Trace after = training_trace(1, 1000, {{Category::kKernel, "fused_kernel", 0, 50}});
  const Comparison comparison = compare(before, after);
  EXPECT_TRUE(name_change(comparison, "fused_kernel").added());
  EXPECT_TRUE(name_change(comparison, "old_kernel").removed());
}

TEST(CompareTest, OpAndKernelOfTheSameNameStaySeparate) {
  const trace::Trace both = training_trace(
      1, 1000, {{Category::kCpuOp, "softmax", 0, 100}, {Category::kKernel, "softmax", 0, 50}});
  EXPECT_EQ(compare(both, both).names.size(), 2u);
}

TEST(CompareTest, PerNameTotalsCountOnlyTheSelectedSteps) {
  const trace::Trace trace = training_trace(4, 1000, {{Category::kCpuOp, "aten::mm", 0, 100}});
  const Comparison comparison = compare(trace, trace, "#[12]$");
  EXPECT_EQ(comparison.before.summary.count, 2u);
  const NameChange& mm = name_change(comparison, "aten::mm");
  EXPECT_EQ(mm.before.count, 2u);
  EXPECT_DOUBLE_EQ(mm.before.calls_per_step, 1.0);
  EXPECT_DOUBLE_EQ(mm.before.time_per_step_ns, 100.0);
}

TEST(CompareTest, TraceWithoutStepsCountsAsOneStep) {
  trace::TraceBuilder builder;
  const std::uint32_t process = builder.add_process({.pid = 1});
  const std::uint32_t host =
      builder.add_track({.kind = trace::TrackKind::kHostThread, .process = process});
  builder.add_span(host, tscope::testing::named_span(builder, "aten::mm", Category::kCpuOp, 0, 40));
  const trace::Trace trace = builder.finalize();
  const Comparison comparison = compare(trace, trace);
  EXPECT_EQ(comparison.before.summary.count, 1u);
  EXPECT_TRUE(comparison.before.summary.whole_trace);
  EXPECT_DOUBLE_EQ(comparison.names[0].before.time_per_step_ns, 40.0);
}

// The old diff compared whole-trace totals of one trace with per-step figures of the other.
TEST(CompareTest, RunsWithStepsOnOneSideOnlyHaveNoStepsInCommon) {
  const trace::Trace with_steps = training_trace(2, 1000, {{Category::kCpuOp, "aten::mm", 0, 10}});
  trace::TraceBuilder builder;
  const std::uint32_t process = builder.add_process({.pid = 1});
  const std::uint32_t host =
      builder.add_track({.kind = trace::TrackKind::kHostThread, .process = process});
  builder.add_span(host, tscope::testing::named_span(builder, "aten::mm", Category::kCpuOp, 0, 40));
  const trace::Trace without_steps = builder.finalize();
  EXPECT_THROW(compare(without_steps, with_steps), AnalyzerError);
  EXPECT_THROW(compare(with_steps, without_steps), AnalyzerError);
}

TEST(CompareTest, AStepFilterThatMatchesNoStepOfOneRunIsRefused) {
  const trace::Trace four_steps = training_trace(4, 1000, {});
  const trace::Trace two_steps = training_trace(2, 1000, {});
  EXPECT_NO_THROW(compare(four_steps, two_steps, "#1$"));
  EXPECT_THROW(compare(four_steps, two_steps, "#3$"), AnalyzerError);
}

TEST(CompareTest, ARunAgainstItselfHasNoContributions) {
  const trace::Trace trace = synchronizing_trace(200);
  const Comparison comparison = compare(trace, trace);
  EXPECT_DOUBLE_EQ(comparison.step_change_ns(), 0.0);
  ASSERT_FALSE(comparison.contributions.empty());
  for (const Contribution& each : comparison.contributions)
    EXPECT_DOUBLE_EQ(each.change_ns(), 0.0) << each.name;
  const TopContributions top = top_contributions(comparison, 20);
  EXPECT_TRUE(top.listed.empty());
  EXPECT_DOUBLE_EQ(top.other_ns, 0.0);
}

TEST(CompareTest, AStepSplitsIntoOpSelfTimeAndTheGpuWorkItWaitsFor) {
  const trace::Trace trace = synchronizing_trace(200);
  const Comparison comparison = compare(trace, trace);
  EXPECT_DOUBLE_EQ(comparison.before.summary.mean_ns, 290.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "aten::linear")->before_ns, 100.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "aten::relu")->before_ns, 50.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "gemm_kernel")->before_ns, 70.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "relu_kernel")->before_ns, 40.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "aten::add_")->before_ns, 30.0);
  EXPECT_DOUBLE_EQ(comparison.not_attributed_before_ns, 0.0);
}

TEST(CompareTest, AKernelTwiceAsLongIsTheOnlyContributor) {
  const Comparison comparison = compare(synchronizing_trace(200), synchronizing_trace(400));
  EXPECT_DOUBLE_EQ(comparison.step_change_ns(), 200.0);
  const TopContributions top = top_contributions(comparison, 20);
  ASSERT_EQ(top.listed.size(), 1u);
  EXPECT_EQ(top.listed[0].kind, WorkKind::kKernel);
  EXPECT_EQ(top.listed[0].name, "gemm_kernel");
  EXPECT_DOUBLE_EQ(top.listed[0].change_ns(), 200.0);
  EXPECT_DOUBLE_EQ(top.other_ns, 0.0);
  expect_contributions_add_up(comparison);
}

TEST(CompareTest, AChildOpsSlowdownIsItsOwnNotItsParents) {
  const trace::Trace before = training_trace(
      2, 1000,
      {{Category::kCpuOp, "aten::linear", 0, 100}, {Category::kCpuOp, "aten::addmm", 20, 80}});
  const trace::Trace after = training_trace(
      2, 1060,
      {{Category::kCpuOp, "aten::linear", 0, 160}, {Category::kCpuOp, "aten::addmm", 20, 140}});
  const Comparison comparison = compare(before, after);
  EXPECT_DOUBLE_EQ(contribution(comparison, "aten::addmm")->change_ns(), 60.0);
  EXPECT_DOUBLE_EQ(contribution(comparison, "aten::linear")->change_ns(), 0.0);
  // Inclusive per-name totals count the 60 ns twice, which is why they are not contributions.
  EXPECT_DOUBLE_EQ(name_change(comparison, "aten::linear").time_added_per_step_ns(), 60.0);
  expect_contributions_add_up(comparison);
}

TEST(CompareTest, TheContributionsNotListedAreTheRemainder) {
  const trace::Trace before = training_trace(
      2, 1000, {{Category::kCpuOp, "grows_a_lot", 0, 100}, {Category::kCpuOp, "grows", 100, 200}});
  const trace::Trace after = training_trace(
      2, 1150, {{Category::kCpuOp, "grows_a_lot", 0, 200}, {Category::kCpuOp, "grows", 200, 350}});
  const Comparison comparison = compare(before, after);
  const TopContributions top = top_contributions(comparison, 1);
  ASSERT_EQ(top.listed.size(), 1u);
  EXPECT_EQ(top.listed[0].name, "grows_a_lot");
  EXPECT_DOUBLE_EQ(top.other_ns, 50.0);
  expect_contributions_add_up(comparison);
}

// Kineto repeats ProfilerStep#N on a second row; the old diff counted the steps of both.
TEST(CompareTest, StepsRepeatedOnAnotherThreadCountOnceAsInAnalyze) {
  tscope::testing::SyntheticTrace built;
  for (int step = 0; step < 3; ++step) {
    const trace::TimeNs base = trace::TimeNs{step} * 1'000;
    const std::string name = "ProfilerStep#" + std::to_string(step);
    built.step(name, base, base + 900, 32);
    built.span(built.worker(), name, Category::kStep, base, base + 900);
    built.span(built.main(), "aten::mm", Category::kCpuOp, base + 100, base + 400);
  }
  const trace::Trace trace = built.finish();
  const Comparison comparison = compare(trace, trace);
  const Report report = run_report(trace, {});
  EXPECT_EQ(comparison.before.summary.count, report.steps.count);
  EXPECT_EQ(comparison.before.summary.count, 3u);
  EXPECT_DOUBLE_EQ(comparison.before.summary.mean_ns, report.steps.mean_ns);
  EXPECT_DOUBLE_EQ(name_change(comparison, "aten::mm").before.calls_per_step, 1.0);
}

TEST(CompareTest, RealKinetoTraceAgainstItselfChangesNothing) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const Comparison comparison = compare(trace, trace);
  // ProfilerStep#5 .. #10, 164.261 ms to 181.259 ms (from the file's "dur" fields).
  EXPECT_EQ(comparison.before.summary.count, 6u);
  EXPECT_DOUBLE_EQ(comparison.before.summary.min_ns, 164261000.0);
  EXPECT_DOUBLE_EQ(comparison.before.summary.max_ns, 181259000.0);
  ASSERT_FALSE(comparison.names.empty());
  for (const NameChange& change : comparison.names) {
    EXPECT_DOUBLE_EQ(change.time_added_per_step_ns(), 0.0) << change.name;
    EXPECT_FALSE(change.added() || change.removed()) << change.name;
  }
  ASSERT_FALSE(comparison.contributions.empty());
  for (const Contribution& each : comparison.contributions)
    EXPECT_DOUBLE_EQ(each.change_ns(), 0.0) << each.name;
}

TEST(CompareTest, TwoRealKinetoRunsWithStepsAgreeWithAnalyzeAndAddUp) {
  TSCOPE_LOAD_SHARED_TRACE(
      before, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_LOAD_SHARED_TRACE(after, "kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  const Comparison comparison = compare(before, after);
  EXPECT_EQ(comparison.before.summary.count, run_report(before, {}).steps.count);
  EXPECT_EQ(comparison.after.summary.count, run_report(after, {}).steps.count);
  EXPECT_FALSE(comparison.after.summary.whole_trace);
  expect_contributions_add_up(comparison);
  // Most of a step's time is somebody's: op self time or the GPU work waited for.
  double attributed_before = 0;
  for (const Contribution& each : comparison.contributions)
    attributed_before += each.before_ns;
  EXPECT_GT(attributed_before, comparison.not_attributed_before_ns);
}

TEST(CompareTest, TwoDifferentRealKinetoRunsListAddedAndRemovedKernels) {
  TSCOPE_LOAD_SHARED_TRACE(before, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_LOAD_SHARED_TRACE(after, "kineto/hta_critical_path_alexnet_a100.json.gz");
  const Comparison comparison = compare(before, after);
  EXPECT_TRUE(comparison.before.summary.whole_trace);  // neither trace marks a ProfilerStep
  EXPECT_TRUE(comparison.after.summary.whole_trace);
  // The GP100 run's vectorized add kernel (50 launches) does not occur in the AlexNet run.
  const auto removed_add =
      std::find_if(comparison.names.begin(), comparison.names.end(), [](const NameChange& change) {
        return change.kind == WorkKind::kKernel && change.removed() &&
               change.name.find("vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add") !=
                   std::string::npos &&
               change.before.count == 50;
      });
  EXPECT_NE(removed_add, comparison.names.end());
  EXPECT_TRUE(std::any_of(comparison.names.begin(), comparison.names.end(),
                          [](const NameChange& change) { return change.added(); }));
  EXPECT_TRUE(std::is_sorted(comparison.names.begin(), comparison.names.end(),
                             [](const NameChange& a, const NameChange& b) {
                               return a.time_added_per_step_ns() > b.time_added_per_step_ns();
                             }));
  expect_contributions_add_up(comparison);
}

}  // namespace
}  // namespace tscope::analyzer
