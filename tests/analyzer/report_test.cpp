// Running the analyses together: selection, ordering, and a clean run.

#include "tscope/analyzer/report.h"

#include <gtest/gtest.h>

#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/analyzer/errors.h"
#include "tscope/trace/chrome_json_reader.h"

namespace tscope::analyzer {
namespace {

using trace::Category;
using tscope::testing::SyntheticTrace;

constexpr trace::TimeNs kMs = 1'000'000;

// A trace of one step and nothing else: enough for the checks of the options.
trace::Trace one_step() {
  SyntheticTrace trace;
  trace.span(trace.main(), "step 0", Category::kStep, 0, kMs);
  return trace.finish();
}

TEST(ReportTest, UnknownAnalysisNameIsAnError) {
  const trace::Trace built = one_step();
  ReportOptions options;
  options.only = {"fusion", "nonsense"};
  EXPECT_THROW(run_report(built, options), AnalyzerError);
}

TEST(ReportTest, StepFilterThatMatchesNothingIsAnError) {
  const trace::Trace built = one_step();
  ReportOptions options;
  options.analysis.step_filter = "epoch";
  EXPECT_THROW(run_report(built, options), AnalyzerError);
  options.analysis.step_filter = "(";
  EXPECT_THROW(run_report(built, options), AnalyzerError);
}

// A quantifier after a quantifier (std::regex took these and backtracked exponentially; the CLI
// fuzzer hung on one) is refused, as ECMAScript, JavaScript and RE2 refuse it.
TEST(ReportTest, StepFilterWithAStackedQuantifierIsAnError) {
  const trace::Trace built = one_step();
  ReportOptions options;
  for (const char* stacked : {"step.++", "st*+ep", "s{1}*tep", "s*?+tep", "\\d[*]++"}) {
    options.analysis.step_filter = stacked;
    EXPECT_THROW(run_report(built, options), AnalyzerError) << stacked;
  }
  for (const char* single :
       {"step .*", "st*?ep", "s{1}tep", "[*+?]*step", "\\++|step", "(?:s)+tep"}) {
    options.analysis.step_filter = single;
    EXPECT_NO_THROW(run_report(built, options)) << single;
  }
}

TEST(ReportTest, OnlyRunsTheSelectedAnalyses) {
  const auto path = tscope::testing::shared_data_path(
      "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::read_chrome_json(path);
  ReportOptions options;
  options.only = {"copies"};
  const Report report = run_report(trace, options);
  EXPECT_FALSE(report.time());
  EXPECT_FALSE(report.breakdown());
  ASSERT_FALSE(report.findings.empty());
  for (const Finding& finding : report.findings) {
    EXPECT_TRUE(finding.kind == "pageable_copy" || finding.kind == "synchronous_copy" ||
                finding.kind == "sync_stall" || finding.kind == "gpu_gap")
        << finding.kind;
  }
}

TEST(ReportTest, FindingsAreOrderedMostCostlyFirst) {
  const auto path =
      tscope::testing::shared_data_path("traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  TSCOPE_REQUIRE_FILE(path);
  const Report report = run_report(trace::read_chrome_json(path), {});
  for (std::size_t i = 1; i < report.findings.size(); ++i) {
    const Finding& before = report.findings[i - 1];
    const Finding& after = report.findings[i];
    EXPECT_TRUE(before.severity > after.severity ||
                (before.severity == after.severity &&
                 before.cost.time_per_step_ns >= after.cost.time_per_step_ns));
  }
}

TEST(ReportTest, CleanCpuOnlyRunHasNothingAboveLow) {
  SyntheticTrace trace;
  for (int step = 0; step < 6; ++step) {
    const trace::TimeNs start = trace::TimeNs{step} * 10 * kMs;
    trace.span(trace.main(), "step " + std::to_string(step), Category::kStep, start,
               start + 10 * kMs);
    trace.span(trace.main(), "next batch", Category::kDataWait, start, start + kMs / 20);
    trace.span(trace.main(), "matmul", Category::kCpuOp, start + kMs / 10, start + 8 * kMs);
    trace.span(trace.main(), "optimizer step", Category::kOptimizer, start + 8 * kMs,
               start + 9 * kMs);
  }
  const Report report = run_report(trace.finish(), {});
  for (const Finding& finding : report.findings)
    EXPECT_LE(finding.severity, Severity::kLow) << finding.title;
  ASSERT_TRUE(report.time());
  EXPECT_FALSE(report.time()->has_gpu);
  EXPECT_DOUBLE_EQ(report.time()->host_data_wait_ns, kMs / 20.0);
  EXPECT_DOUBLE_EQ(report.time()->host_ops_ns, 7.9 * kMs);
  EXPECT_DOUBLE_EQ(report.time()->host_optimizer_ns, 1.0 * kMs);
  EXPECT_DOUBLE_EQ(report.time()->host_other_ns, 1.05 * kMs);
}

}  // namespace
}  // namespace tscope::analyzer
