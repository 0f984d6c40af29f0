// One trace per rank: %r, %p, %h and %% in a trace file name, the launcher variables %r reads in
// their order of trust, and `tscope record -o run-%r.tsc` under a launcher's environment.

#include "tscope/profiler/output_name.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "scratch_folder.h"
#include "tscope/profiler/session.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::profiler {
namespace {

// Sets a variable for one test and restores the environment after it.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name); old != nullptr) previous_ = old;
    had_value_ = std::getenv(name) != nullptr;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedVariable() {
    if (had_value_) {
      setenv(name_, previous_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::string previous_;
  bool had_value_ = false;
};

TEST(OutputName, ExpandsRankPidHostAndPercent) {
  const OutputNameFields fields{.rank = 3, .pid = 4242, .host = "node7"};
  EXPECT_EQ(expand_output_name("run-%r.tsc", fields), "run-3.tsc");
  EXPECT_EQ(expand_output_name("%h/%p-%r-100%%.tsc", fields), "node7/4242-3-100%.tsc");
  EXPECT_EQ(expand_output_name("plain.tsc", fields), "plain.tsc");
}

TEST(OutputName, RefusesUnknownFieldsAndATrailingPercent) {
  const OutputNameFields fields{.rank = 0, .pid = 1, .host = "h"};
  EXPECT_THROW(expand_output_name("run-%x.tsc", fields), ProfilerError);
  EXPECT_THROW(expand_output_name("run-%", fields), ProfilerError);
}

TEST(OutputName, RefusesTheRankWhenNoLauncherGaveOne) {
  try {
    expand_output_name("run-%r.tsc", {.rank = std::nullopt, .pid = 1, .host = "h"});
    FAIL() << "%r expanded without a rank";
  } catch (const ProfilerError& error) {
    EXPECT_NE(std::string(error.what()).find("OMPI_COMM_WORLD_RANK"), std::string::npos)
        << error.what();
  }
}

TEST(LauncherRank, PrefersOpenMpiThenPmiPmixSlurmAndTorchrun) {
  const ScopedVariable ompi("OMPI_COMM_WORLD_RANK", nullptr);
  const ScopedVariable pmi("PMI_RANK", nullptr);
  const ScopedVariable pmix("PMIX_RANK", nullptr);
  const ScopedVariable slurm("SLURM_PROCID", "5");
  const ScopedVariable torchrun("RANK", "9");
  EXPECT_EQ(launcher_rank(), 5);
  {
    const ScopedVariable pmix_set("PMIX_RANK", "4");
    EXPECT_EQ(launcher_rank(), 4);
    const ScopedVariable ompi_set("OMPI_COMM_WORLD_RANK", "1");
    EXPECT_EQ(launcher_rank(), 1);
  }
  const ScopedVariable slurm_unset("SLURM_PROCID", nullptr);
  EXPECT_EQ(launcher_rank(), 9);
  const ScopedVariable torchrun_unset("RANK", nullptr);
  EXPECT_EQ(launcher_rank(), std::nullopt);
}

TEST(LauncherRank, RefusesARankThatIsNotANumber) {
  const ScopedVariable ompi("OMPI_COMM_WORLD_RANK", "two");
  EXPECT_THROW(launcher_rank(), ProfilerError);
}

class RecordOutputName : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = tscope::testing::scratch_path("tscope_output_name");
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  // `tscope record -o DIRECTORY/run-%r.tsc -- /bin/true` with no launcher variable but
  // `launcher_variables` (e.g. "OMPI_COMM_WORLD_RANK=3").
  testing::CommandResult record_rank_pattern(const std::string& launcher_variables) const {
    std::string command = "env";
    for (const std::string_view variable : kLauncherRankVariables) {
      command += " -u " + std::string(variable);
    }
    return testing::run_command(command + " " + launcher_variables + " " +
                                testing::quoted(testing::built_program("tscope")) + " record -o " +
                                testing::quoted(directory_ / "run-%r.tsc") + " -- /bin/true");
  }

  std::filesystem::path directory_;
};

TEST_F(RecordOutputName, WritesTheTraceOfTheLaunchersRank) {
  const testing::CommandResult result = record_rank_pattern("OMPI_COMM_WORLD_RANK=3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NO_THROW(trace::load_trace(directory_ / "run-3.tsc")) << result.output;
}

TEST_F(RecordOutputName, ARankPatternWithoutALauncherIsBadInput) {
  const testing::CommandResult result = record_rank_pattern("");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("asks for the rank (%r)"), std::string::npos) << result.output;
  EXPECT_TRUE(std::filesystem::is_empty(directory_));
}

}  // namespace
}  // namespace tscope::profiler
