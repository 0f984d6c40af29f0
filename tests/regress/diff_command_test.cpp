// `tscope diff` as a child process on real Kineto traces: exit 0 with the report, 2 with the
// file named when a trace cannot be read.

#include <gtest/gtest.h>

#include "test_data.h"
#include "tscope_process.h"

namespace tscope::regress {
namespace {

using tscope::testing::CommandResult;
using tscope::testing::quoted;
using tscope::testing::run_tscope;

const char* const kResnet =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";
const char* const kGp100 = "traces/kineto/hta_step_based_gpu_user_annotation_gp100.json.gz";

TEST(DiffCommandTest, TwoKinetoTracesGiveAReportAndExitZero) {
  const auto before = tscope::testing::shared_data_path(kGp100);
  const auto after = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(before);
  TSCOPE_REQUIRE_FILE(after);
  const CommandResult result =
      run_tscope("diff " + quoted(before) + " " + quoted(after) + " --top 5");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("before: no step spans (whole trace counted as one step)"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("after:  6 steps, median"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("removed"), std::string::npos) << result.output;
}

TEST(DiffCommandTest, JsonReportCarriesTheSchemaName) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const CommandResult result =
      run_tscope("diff " + quoted(trace) + " " + quoted(trace) + " --format json");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"schema\": \"tscope.trace-diff/1\""), std::string::npos);
}

TEST(DiffCommandTest, MissingTraceExitsTwoNamingIt) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const CommandResult result = run_tscope("diff " + quoted(trace) + " /nonexistent/after.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("/nonexistent/after.json"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace tscope::regress
