// `tscope diff` as a child process on real Kineto traces: exit 0 with the report, 2 with the
// file named when a trace cannot be read, when --steps selects none of its steps, or when only one
// of the traces marks steps.

#include <gtest/gtest.h>

#include "test_data.h"
#include "tscope_process.h"

namespace tscope::analyzer {
namespace {

using tscope::testing::CommandResult;
using tscope::testing::quoted;
using tscope::testing::run_tscope;

const char* const kResnet =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";
const char* const kNcclRank0 = "traces/kineto/hta_nccl_data_a100_rank0_of2.json.gz";
const char* const kGp100 = "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz";
const char* const kAlexnet = "traces/kineto/hta_critical_path_alexnet_a100.json.gz";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DiffCommandTest, TwoKinetoTracesGiveAReportAndExitZero) {
  const auto before = tscope::testing::shared_data_path(kGp100);
  const auto after = tscope::testing::shared_data_path(kAlexnet);
  TSCOPE_REQUIRE_FILE(before);
  TSCOPE_REQUIRE_FILE(after);
  const CommandResult result =
      run_tscope("diff " + quoted(before) + " " + quoted(after) + " --top 5");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "no step ranges; the whole trace")) << result.output;
  EXPECT_TRUE(contains(result.output, "Top contributors to the step-time difference"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "other / not attributed")) << result.output;
  EXPECT_TRUE(contains(result.output, "removed")) << result.output;
}

TEST(DiffCommandTest, StepsSelectTheSameStepsInBothTraces) {
  const auto before = tscope::testing::shared_data_path(kResnet);
  const auto after = tscope::testing::shared_data_path(kNcclRank0);
  TSCOPE_REQUIRE_FILE(before);
  TSCOPE_REQUIRE_FILE(after);
  const CommandResult result =
      run_tscope("diff " + quoted(before) + " " + quoted(after) + " --steps '#[56]$'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "before: " + before.string() + ": 2 steps, mean"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "after:  " + after.string() + ": 2 steps, mean"))
      << result.output;
}

TEST(DiffCommandTest, StepsMatchingNoStepOfOneTraceExitTwoNamingIt) {
  const auto before = tscope::testing::shared_data_path(kResnet);
  const auto after = tscope::testing::shared_data_path(kNcclRank0);
  TSCOPE_REQUIRE_FILE(before);
  TSCOPE_REQUIRE_FILE(after);
  const CommandResult result =
      run_tscope("diff " + quoted(before) + " " + quoted(after) + " --steps '#9$'");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(contains(result.output, after.string() + ": --steps '#9$' matches no step"))
      << result.output;
}

TEST(DiffCommandTest, TracesWithoutStepsInCommonExitTwo) {
  const auto before = tscope::testing::shared_data_path(kGp100);
  const auto after = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(before);
  TSCOPE_REQUIRE_FILE(after);
  const CommandResult result = run_tscope("diff " + quoted(before) + " " + quoted(after));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(contains(result.output, "no steps in common")) << result.output;
}

TEST(DiffCommandTest, JsonReportCarriesTheSchemaNameAndVersion) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const CommandResult result =
      run_tscope("diff " + quoted(trace) + " " + quoted(trace) + " --format json");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "\"schema\": \"tscope.trace-diff/2\"")) << result.output;
}

TEST(DiffCommandTest, MissingTraceExitsTwoNamingIt) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const CommandResult result = run_tscope("diff " + quoted(trace) + " /nonexistent/after.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(contains(result.output, "/nonexistent/after.json")) << result.output;
}

}  // namespace
}  // namespace tscope::analyzer
