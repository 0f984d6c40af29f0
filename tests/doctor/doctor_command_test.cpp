// `tscope doctor` run as a child process, as a user or a CI script runs it: exit 1 and the "no
// driver" diagnosis on a machine without one, JSON that parses with the documented fields, and
// exit 2 on bad arguments.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "no_driver.h"
#include "tscope_process.h"

namespace tscope::doctor {
namespace {

using tscope::testing::CommandResult;
using tscope::testing::run_tscope;

TEST(DoctorCommandTest, WithoutDriverExitsOneAndSaysWhatIsMissing) {
  TSCOPE_REQUIRE_NO_NVIDIA_DRIVER();
  const CommandResult result = run_tscope("doctor");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("GPU usable: no"), std::string::npos) << result.output;
  EXPECT_TRUE(result.output.find("libcuda.so.1") != std::string::npos ||
              result.output.find("built without the CUDA toolkit") != std::string::npos)
      << result.output;
}

TEST(DoctorCommandTest, JsonOutputParsesWithTheDocumentedFields) {
  TSCOPE_REQUIRE_NO_NVIDIA_DRIVER();
  const CommandResult result = run_tscope("doctor --json --no-bandwidth", "2>/dev/null");
  EXPECT_EQ(result.exit_code, 1);

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(result.output).get(root), simdjson::SUCCESS) << result.output;

  EXPECT_EQ(root["gpu_usable"].get_bool().value(), false);
  const bool built_with_cuda = root["built_with_cuda"].get_bool().value();
  EXPECT_EQ(root["cuda_version"].is_string(), built_with_cuda);
  EXPECT_TRUE(root["driver_cuda_version"].is_null());
  EXPECT_TRUE(root["driver_version"].is_null());
  EXPECT_TRUE(root["bandwidth"].is_null());
  EXPECT_EQ(root["devices"].get_array().size(), 0u);

  const std::set<std::string_view> statuses{"ok", "warning", "error"};
  std::set<std::string_view> checks;
  for (simdjson::dom::element diagnosis : root["diagnoses"].get_array()) {
    const std::string_view status = diagnosis["status"].get_string().value();
    EXPECT_TRUE(statuses.contains(status)) << status;
    EXPECT_TRUE(diagnosis["found"].is_string());
    EXPECT_TRUE(diagnosis["action"].is_string());
    checks.insert(diagnosis["check"].get_string().value());
  }
  EXPECT_TRUE(checks.contains("cuda-visible-devices"));
  EXPECT_TRUE(checks.contains("profiling-permission"));
  EXPECT_TRUE(checks.contains(built_with_cuda ? "nvidia-driver" : "cuda-build"));

  for (simdjson::dom::element library : root["libraries"].get_array()) {
    const bool loaded = library["loaded"].get_bool().value();
    EXPECT_TRUE(library["id"].is_string());
    EXPECT_TRUE(library["file"].is_string());
    EXPECT_EQ(library["version"].is_string(), loaded);
    EXPECT_EQ(library["error"].is_string(), !loaded);
  }

  simdjson::dom::array binaries = root["binaries"].get_array();
  ASSERT_EQ(binaries.size(), 1u);
  const std::string_view path = binaries.at(0)["path"].get_string().value();
  EXPECT_EQ(std::filesystem::path(path).filename(), "tscope");
  EXPECT_TRUE(binaries.at(0)["translation_units"].is_uint64() ||
              binaries.at(0)["translation_units"].is_int64());
  EXPECT_TRUE(binaries.at(0)["images"].is_array());
}

TEST(DoctorCommandTest, UnknownOptionExitsTwo) {
  EXPECT_EQ(run_tscope("doctor --no-such-option").exit_code, 2);
}

TEST(DoctorCommandTest, MissingBinaryExitsTwoNamingIt) {
  const CommandResult result = run_tscope("doctor --binary /nonexistent/tscope-probe");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("/nonexistent/tscope-probe"), std::string::npos) << result.output;
}

TEST(DoctorCommandTest, BinaryThatIsNotElfExitsTwoNamingIt) {
  const std::string not_elf = TSCOPE_SOURCE_DIR "/docker/Dockerfile";
  const CommandResult result = run_tscope("doctor --no-bandwidth --binary '" + not_elf + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find(not_elf), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("not an ELF file"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace tscope::doctor
