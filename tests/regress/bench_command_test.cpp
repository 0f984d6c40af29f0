// `tscope bench compare` and `tscope bench ratio` run as a child process, as CI runs them:
// exit 0 when nothing regressed, 1 on a regression, 2 on bad input with the file named.

#include <gtest/gtest.h>

#include <string>

#include "temp_file.h"
#include "test_data.h"
#include "tscope_process.h"

namespace tscope::regress {
namespace {

using testing::TempFile;
using tscope::testing::CommandResult;
using tscope::testing::quoted;
using tscope::testing::run_tscope;

constexpr const char* kBaseRun = R"({"benchmarks": [
  {"name": "BM_EngineMatmul/64", "run_type": "iteration", "real_time": 110, "cpu_time": 110, "time_unit": "ns"},
  {"name": "BM_EngineMatmul/64", "run_type": "iteration", "real_time": 111, "cpu_time": 111, "time_unit": "ns"},
  {"name": "BM_EngineMatmul/64", "run_type": "iteration", "real_time": 109, "cpu_time": 109, "time_unit": "ns"},
  {"name": "BM_EngineMatmul/64", "run_type": "iteration", "real_time": 110, "cpu_time": 110, "time_unit": "ns"},
  {"name": "BM_BlasSgemm/64", "run_type": "iteration", "real_time": 100, "cpu_time": 100, "time_unit": "ns"},
  {"name": "BM_BlasSgemm/64", "run_type": "iteration", "real_time": 101, "cpu_time": 101, "time_unit": "ns"},
  {"name": "BM_BlasSgemm/64", "run_type": "iteration", "real_time": 99, "cpu_time": 99, "time_unit": "ns"},
  {"name": "BM_BlasSgemm/64", "run_type": "iteration", "real_time": 100, "cpu_time": 100, "time_unit": "ns"}]})";

class BenchCommandTest : public ::testing::Test {
 protected:
  std::filesystem::path fixture(const char* name) {
    return tscope::testing::shared_data_path(std::string("traces/gbench/") + name);
  }
};

TEST_F(BenchCommandTest, CompareExitsOneWhenABenchmarkRegressed) {
  const auto base = fixture("google_benchmark_compare_test1_run1.json");
  TSCOPE_REQUIRE_FILE(base);
  const CommandResult result =
      run_tscope("bench compare " + quoted(base) + " " +
                 quoted(fixture("google_benchmark_compare_test1_run2.json")));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("result: 4 regressed"), std::string::npos) << result.output;
}

TEST_F(BenchCommandTest, CompareExitsZeroWhenNothingRegressed) {
  const auto base = fixture("google_benchmark_compare_test1_run1.json");
  TSCOPE_REQUIRE_FILE(base);
  const CommandResult result = run_tscope("bench compare " + quoted(base) + " " + quoted(base));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("result: no regression"), std::string::npos) << result.output;
}

TEST_F(BenchCommandTest, CompareExitsTwoAndNamesAMissingFile) {
  const TempFile base("base.json", kBaseRun);
  const CommandResult result =
      run_tscope("bench compare " + quoted(base.path()) + " /nonexistent/new.json");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("/nonexistent/new.json"), std::string::npos) << result.output;
}

TEST_F(BenchCommandTest, CompareExitsTwoAndNamesAMalformedFile) {
  const TempFile base("base.json", kBaseRun);
  const TempFile broken("broken.json", R"({"benchmarks": [{"name": "BM_X", )");
  const CommandResult result =
      run_tscope("bench compare " + quoted(base.path()) + " " + quoted(broken.path()));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(broken.path().string() + ": not valid JSON"), std::string::npos)
      << result.output;
}

TEST_F(BenchCommandTest, CompareRejectsAnUnknownFormat) {
  const TempFile base("base.json", kBaseRun);
  const CommandResult result = run_tscope("bench compare " + quoted(base.path()) + " " +
                                          quoted(base.path()) + " --format html");
  EXPECT_EQ(result.exit_code, 2) << result.output;
}

TEST_F(BenchCommandTest, CompareWritesJsonWhenAsked) {
  const TempFile base("base.json", kBaseRun);
  const CommandResult result = run_tscope("bench compare " + quoted(base.path()) + " " +
                                          quoted(base.path()) + " --format json");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"schema\": \"tscope.bench-compare/1\""), std::string::npos)
      << result.output;
}

TEST_F(BenchCommandTest, CompareAppliesAThresholdFromTheConfigFile) {
  const auto base = fixture("google_benchmark_compare_test1_run1.json");
  TSCOPE_REQUIRE_FILE(base);
  const TempFile config("policy.conf", "threshold * none\n");
  const CommandResult result =
      run_tscope("bench compare " + quoted(base) + " " +
                 quoted(fixture("google_benchmark_compare_test1_run2.json")) + " --config " +
                 quoted(config.path()));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

// `tscope bench ratio` over kBaseRun with these options.
CommandResult ratio_of_base_run(const std::string& options) {
  const TempFile run("run.json", kBaseRun);
  return run_tscope("bench ratio " + quoted(run.path()) + " " + options);
}

TEST_F(BenchCommandTest, RatioWithinLimitExitsZero) {
  const CommandResult result = ratio_of_base_run(
      "--numerator 'BM_EngineMatmul/(.*)' --denominator 'BM_BlasSgemm/$1' --max 1.15");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("BM_EngineMatmul/64 / BM_BlasSgemm/64 = 1.1000 (limit 1.1500) ok"),
            std::string::npos)
      << result.output;
}

TEST_F(BenchCommandTest, RatioAboveLimitExitsOne) {
  const CommandResult result = ratio_of_base_run(
      "--numerator 'BM_EngineMatmul/(.*)' --denominator 'BM_BlasSgemm/$1' --max 1.05");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("EXCEEDED"), std::string::npos) << result.output;
}

TEST_F(BenchCommandTest, RatioMatchingNothingIsBadInput) {
  const CommandResult result =
      ratio_of_base_run("--numerator 'BM_Nothing(.*)' --denominator 'X$1' --max 1.1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("no benchmark matches"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace tscope::regress
