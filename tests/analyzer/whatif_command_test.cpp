// `tscope whatif` as a child process on a real Kineto trace: the replay and its prediction with
// exit 0, the simulated run written with -o and readable, and exit 2 naming the edit or the file
// for an edit that is malformed or matches nothing and for a trace without step ranges; and on the
// traces of a synthetic two-rank run, the coupled replay of several ranks and its refusals.

#include <gtest/gtest.h>

#include "scratch_folder.h"
#include "synthetic_ranks.h"
#include "test_data.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::analyzer {
namespace {

using tscope::testing::CommandResult;
using tscope::testing::quoted;
using tscope::testing::run_tscope;

const char* const kResnet =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";
const char* const kNoSteps = "traces/kineto/hta_cuda_event_sync_multi_stream_a100.json.gz";

TEST(WhatIfCommandTest, PredictsTheStepsAndWritesTheSimulatedRun) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const auto simulated = tscope::testing::scratch_path("whatif_simulated.tsc");
  const CommandResult result = run_tscope("whatif -q " + quoted(trace) + " --edit " +
                                          quoted("input-wait*0") + " -o " + quoted(simulated));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("input-wait*0  (6 events)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("6 of 6 steps replayed"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("mean "), std::string::npos) << result.output;
  const trace::Trace written = trace::load_trace(simulated);
  EXPECT_GT(written.counts().spans, 0u);
  EXPECT_EQ(written.metadata().values.at("whatif.edits"), "input-wait*0");
}

TEST(WhatIfCommandTest, JsonCarriesTheSchemaName) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(trace);
  const CommandResult result = run_tscope("whatif -q " + quoted(trace) + " --format json");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\"schema\": \"tscope.whatif/1\""), std::string::npos)
      << result.output;
}

TEST(WhatIfCommandTest, BadEditsAndTracesWithoutStepsExitTwoNamingThem) {
  const auto trace = tscope::testing::shared_data_path(kResnet);
  const auto no_steps = tscope::testing::shared_data_path(kNoSteps);
  TSCOPE_REQUIRE_FILE(trace);
  TSCOPE_REQUIRE_FILE(no_steps);
  for (const std::string edit : {"sgemm*fast", "kernel:no_such_kernel_anywhere*0.5"}) {
    const CommandResult result =
        run_tscope("whatif -q " + quoted(trace) + " --edit " + quoted(std::filesystem::path(edit)));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("'" + edit + "'"), std::string::npos) << result.output;
  }
  const CommandResult result = run_tscope("whatif -q " + quoted(no_steps));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("no step ranges"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(no_steps.filename().string()), std::string::npos) << result.output;
}

// The two ranks of a run with a 5 ms straggler, written as .tsc files; returns their quoted paths.
std::string two_rank_traces() {
  testing::SyntheticRun run;
  run.world_size = 2;
  run.steps = 4;
  run.slow_rank = 1;
  run.slow_ns = 5'000'000;
  run.queue_flows = true;
  std::string paths;
  for (int rank = 0; rank < 2; ++rank) {
    const auto path = tscope::testing::scratch_path("whatif_rank" + std::to_string(rank) + ".tsc");
    trace::save_trace(run.rank_trace(rank), path);
    paths += " " + quoted(path);
  }
  return paths;
}

TEST(WhatIfCommandTest, SeveralTracesAreRanksReplayedTogether) {
  const std::string ranks = two_rank_traces();
  const CommandResult text =
      run_tscope("whatif -q" + ranks + " --edit " + quoted("op:extra host work*0"));
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("2 ranks replayed together, coupled at 4 collectives"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("== rank 1"), std::string::npos) << text.output;
  const CommandResult json = run_tscope("whatif -q" + ranks + " --format json");
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find("\"schema\": \"tscope.whatif-ranks/1\""), std::string::npos)
      << json.output;
}

TEST(WhatIfCommandTest, SeveralTracesRefuseOneOutputAndEditsThatMatchNoRank) {
  const std::string ranks = two_rank_traces();
  const CommandResult output = run_tscope(
      "whatif -q" + ranks + " -o " + quoted(tscope::testing::scratch_path("whatif_ranks.tsc")));
  EXPECT_EQ(output.exit_code, 2) << output.output;
  EXPECT_NE(output.output.find("-o writes one simulated trace"), std::string::npos)
      << output.output;
  const CommandResult unmatched =
      run_tscope("whatif -q" + ranks + " --edit " + quoted("op:no such range*0"));
  EXPECT_EQ(unmatched.exit_code, 2) << unmatched.output;
  EXPECT_NE(unmatched.output.find("'op:no such range*0' matches no event of any rank"),
            std::string::npos)
      << unmatched.output;
}

}  // namespace
}  // namespace tscope::analyzer
