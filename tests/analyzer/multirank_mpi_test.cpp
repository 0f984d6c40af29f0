// The multi-rank analysis on a real two-rank MPI training run, recorded as a user does
// (tests/distributed/record_two_ranks.sh: mpirun -np 2 tscope record -o r%r.tsc --
// train_fashion_mnist --distributed ...): with a planted straggler on rank 1 it names rank 1 and
// host work as the cause; without one it names no straggler above low.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scratch_folder.h"
#include "tscope/analyzer/multirank.h"
#include "tscope_process.h"

namespace tscope::analyzer {
namespace {

constexpr int kExitSkipped = 77;

class RecordedRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = tscope::testing::scratch_path(
        std::string("tscope_multirank_mpi_") +
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  // Records `steps` steps of the run and analyzes its two traces; skips when mpirun is not
  // installed.
  MultiRankReport record_and_analyze(const std::string& switches, int steps) {
    const testing::CommandResult recorded = testing::run_command(
        "TSCOPE_TWO_RANK_STEPS=" + std::to_string(steps) + " bash " +
        testing::quoted(std::filesystem::path(TSCOPE_SOURCE_DIR) /
                        "tests/distributed/record_two_ranks.sh") +
        " " + testing::quoted(TSCOPE_BINARY_DIR) + " " + testing::quoted(folder_) + " " + switches);
    if (recorded.exit_code == kExitSkipped) {
      skipped_ = true;
      return {};
    }
    EXPECT_EQ(recorded.exit_code, 0) << recorded.output;
    return analyze_ranks(summarize_trace_files(list_trace_files({folder_}), {}));
  }

  static const Finding* straggler_of(const MultiRankReport& report) {
    for (const Finding& finding : report.findings) {
      if (finding.kind.starts_with("straggler")) return &finding;
    }
    return nullptr;
  }

  std::filesystem::path folder_;
  bool skipped_ = false;
};

TEST_F(RecordedRunTest, PlantedSlowRankIsTheStragglerWithHostWorkAsCause) {
  const MultiRankReport report = record_and_analyze("--slow-rank 1 --slow-ms 30", 12);
  if (skipped_) GTEST_SKIP() << "mpirun not found (openmpi-bin)";
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_TRUE(report.matched_by_seq);
  EXPECT_EQ(report.unmatched_collectives, 0u);
  EXPECT_EQ(report.ranks[0].collectives, report.ranks[1].collectives);
  const Finding* straggler = straggler_of(report);
  ASSERT_NE(straggler, nullptr);
  EXPECT_EQ(straggler->metric("rank"), 1);
  EXPECT_EQ(straggler->kind, "straggler.host");
  EXPECT_GE(straggler->severity, Severity::kMedium);
}

TEST_F(RecordedRunTest, RunWithoutPlantedDelayNamesNoStragglerAboveLow) {
  // 48 steps of about 4 ms: a few milliseconds in which another process holds one rank's core
  // must not pass for a habit of that rank's.
  const MultiRankReport report = record_and_analyze("", 48);
  if (skipped_) GTEST_SKIP() << "mpirun not found (openmpi-bin)";
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.unmatched_collectives, 0u);
  if (const Finding* straggler = straggler_of(report)) {
    EXPECT_LE(straggler->severity, Severity::kLow) << straggler->title << "\n"
                                                   << straggler->explanation;
  }
}

}  // namespace
}  // namespace tscope::analyzer
