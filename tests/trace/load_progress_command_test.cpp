// The progress line of a long load is for a person at a terminal: `tscope info` writes none when
// its stderr is a pipe, nor does it or `tscope export` on a terminal when told --quiet.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scratch_folder.h"
#include "test_data.h"
#include "tscope_process.h"

namespace tscope::trace {
namespace {

using tscope::testing::quoted;
using tscope::testing::run_command;
using tscope::testing::run_tscope;
using tscope::testing::shared_data_path;

constexpr const char* kResnet =
    "traces/kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz";

TEST(LoadProgressCommandTest, NoProgressWhenStderrIsAPipe) {
  const auto path = shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(path);
  const auto result = run_tscope("info " + quoted(path) + " 2>&1 >/dev/null", "");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "");
}

TEST(LoadProgressCommandTest, QuietSilencesProgressOnATerminal) {
  const auto path = shared_data_path(kResnet);
  TSCOPE_REQUIRE_FILE(path);
  const std::filesystem::path exported = tscope::testing::scratch_path("tscope-progress.pftrace");
  for (const std::string& arguments :
       {"info --quiet " + quoted(path),
        "export --quiet --perfetto " + quoted(exported) + " " + quoted(path)}) {
    // script(1) gives the command a terminal for stdout and stderr alike; only stderr is kept.
    const std::string command =
        tscope::testing::built_program("tscope").string() + " " + arguments + " >/dev/null";
    const auto result = run_command("script -qec \"" + command + "\" /dev/null", "");
    EXPECT_EQ(result.exit_code, 0) << arguments;
    EXPECT_EQ(result.output.find("reading"), std::string::npos) << arguments << result.output;
  }
  std::filesystem::remove(exported);
}

}  // namespace
}  // namespace tscope::trace
