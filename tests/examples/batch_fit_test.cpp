// The largest batch that fits, checked rather than trusted: the example halves its batch on out of
// memory (--auto-batch) under a memory cap, the analyzer fits fixed + per-sample bytes from that
// trace and predicts the largest batch, and the example then runs under the same cap at that
// batch (which must complete its steps) and at 25% above it (which must run out of memory).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <string>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope/analyzer/report.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope {
namespace {

using testing::quoted;

struct CapCase {
  const char* model;
  const char* cap;
  int first_batch;  // where --auto-batch starts halving
};

// Names the case in test output instead of its bytes.
void PrintTo(const CapCase& cap_case, std::ostream* out) {
  *out << cap_case.model << " under " << cap_case.cap;
}

class PredictedBatch : public ::testing::TestWithParam<CapCase> {
 protected:
  void SetUp() override {
    TSCOPE_REQUIRE_FILE(testing::fashion_mnist_dir() / "train-images-idx3-ubyte.gz");
    directory_ = tscope::testing::scratch_path("tscope_batch_fit_" + std::string(GetParam().model) +
                                               GetParam().cap);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  // Three steps under the case's cap, without evaluation, the batches loaded on the main thread;
  // the extra arguments after. With loader workers, how many batches they hold ready at a step's
  // peak depends on their timing: a search run in which they fall behind (a sanitizer build, a
  // loaded machine) sees fewer than a later run holds, and no trace of it can tell.
  testing::CommandResult train(const std::string& arguments) const {
    return testing::run_command(std::string("TSCOPE_CPU_MEMORY_CAP=") + GetParam().cap + " " +
                                quoted(testing::built_program("train_fashion_mnist")) +
                                " --data-dir " + quoted(testing::fashion_mnist_dir()) +
                                " --model " + GetParam().model +
                                " --steps 3 --no-eval --workers 0 " + arguments);
  }

  std::filesystem::path directory_;
};

TEST_P(PredictedBatch, FitsForThreeStepsAndAQuarterMoreRunsOutOfMemory) {
  const std::filesystem::path trace_path = directory_ / "auto.tsc";
  const testing::CommandResult search =
      train("--auto-batch --batch-size " + std::to_string(GetParam().first_batch) + " --trace " +
            quoted(trace_path));
  ASSERT_EQ(search.exit_code, 0) << search.output;
  ASSERT_NE(search.output.find("retrying with batch"), std::string::npos) << search.output;

  const analyzer::Report report = analyzer::run_report(trace::load_trace(trace_path), {});
  const auto oom =
      std::find_if(report.findings.begin(), report.findings.end(),
                   [](const analyzer::Finding& finding) { return finding.kind == "oom"; });
  ASSERT_NE(oom, report.findings.end());
  EXPECT_EQ(oom->metric("largest_batch_is_bound"), 0) << oom->recommendation;
  const auto predicted = static_cast<long>(oom->metric("largest_batch_that_fits"));
  ASSERT_GT(predicted, 0) << oom->recommendation;

  const testing::CommandResult at_prediction = train("--batch-size " + std::to_string(predicted));
  EXPECT_EQ(at_prediction.exit_code, 0) << "batch " << predicted << ": " << at_prediction.output;
  EXPECT_NE(at_prediction.output.find("after 3 steps"), std::string::npos) << at_prediction.output;

  const auto above = static_cast<long>(std::ceil(1.25 * static_cast<double>(predicted)));
  const testing::CommandResult past_prediction = train("--batch-size " + std::to_string(above));
  EXPECT_EQ(past_prediction.exit_code, 1) << "batch " << above << ": " << past_prediction.output;
  EXPECT_NE(past_prediction.output.find("out of memory"), std::string::npos)
      << past_prediction.output;
}

INSTANTIATE_TEST_SUITE_P(CnnAndMlpUnderTwoCaps, PredictedBatch,
                         ::testing::Values(CapCase{"cnn", "16M", 512}, CapCase{"cnn", "32M", 512},
                                           CapCase{"mlp", "8M", 8192}, CapCase{"mlp", "16M", 8192}),
                         [](const ::testing::TestParamInfo<CapCase>& case_info) {
                           return std::string(case_info.param.model) + "_" + case_info.param.cap;
                         });

}  // namespace
}  // namespace tscope
