// docker/Dockerfile cannot be built here (no Docker engine), so its references are checked
// against the repository instead: what it copies exists and is not filtered out of the build
// context, every build argument is used, both stages come from NVIDIA's CUDA images of the
// chosen version, it runs the installer it copies, and it copies the binaries from where the
// build puts them.

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tscope::doctor {
namespace {

const std::filesystem::path kSourceDir = TSCOPE_SOURCE_DIR;

struct Instruction {
  std::string keyword;                 // upper case: FROM, ARG, COPY, RUN...
  std::vector<std::string> arguments;  // split on white space
  std::string text;                    // everything after the keyword
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Joins continuation lines and drops comments and blank lines, as the Dockerfile parser does.
std::vector<Instruction> parse_dockerfile(const std::string& text) {
  std::vector<Instruction> instructions;
  std::istringstream lines(text);
  std::string line;
  std::string pending;
  while (std::getline(lines, line)) {
    if (pending.empty() && (line.empty() || line.front() == '#')) {
      continue;
    }
    if (!line.empty() && line.back() == '\\') {
      pending += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    pending += line;
    std::istringstream words(pending);
    Instruction instruction;
    words >> instruction.keyword;
    std::getline(words, instruction.text);
    std::istringstream arguments(instruction.text);
    for (std::string word; arguments >> word;) {
      instruction.arguments.push_back(word);
    }
    instructions.push_back(std::move(instruction));
    pending.clear();
  }
  return instructions;
}

std::vector<std::string> ignore_patterns() {
  std::vector<std::string> patterns;
  std::istringstream lines(read_file(kSourceDir / "docker/Dockerfile.dockerignore"));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.front() != '#') {
      patterns.push_back(line);
    }
  }
  return patterns;
}

bool ignored(const std::string& path, const std::vector<std::string>& patterns) {
  // A path is left out when it or any folder above it matches a pattern.
  for (std::filesystem::path prefix; const auto& part : std::filesystem::path(path)) {
    prefix /= part;
    for (const std::string& pattern : patterns) {
      if (fnmatch(pattern.c_str(), prefix.c_str(), 0) == 0) {
        return true;
      }
    }
  }
  return false;
}

class DockerfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto path = kSourceDir / "docker/Dockerfile";
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    text_ = read_file(path);
    instructions_ = parse_dockerfile(text_);
  }

  std::vector<const Instruction*> all(const std::string& keyword) const {
    std::vector<const Instruction*> found;
    for (const Instruction& instruction : instructions_) {
      if (instruction.keyword == keyword) {
        found.push_back(&instruction);
      }
    }
    return found;
  }

  std::string text_;
  std::vector<Instruction> instructions_;
};

TEST_F(DockerfileTest, EveryCopiedSourceExistsAndReachesTheBuildContext) {
  const auto patterns = ignore_patterns();
  int copied = 0;
  for (const Instruction* copy : all("COPY")) {
    if (copy->arguments.front().starts_with("--from=")) {
      continue;
    }
    for (std::size_t source = 0; source + 1 < copy->arguments.size(); ++source) {
      const std::string& path = copy->arguments[source];
      EXPECT_TRUE(std::filesystem::exists(kSourceDir / path)) << "COPY source missing: " << path;
      EXPECT_FALSE(path != "." && ignored(path, patterns))
          << "COPY source filtered out of the context: " << path;
      ++copied;
    }
  }
  EXPECT_GT(copied, 0);
}

TEST_F(DockerfileTest, EveryBuildArgumentIsUsed) {
  const auto arguments = all("ARG");
  ASSERT_FALSE(arguments.empty());
  for (const Instruction* argument : arguments) {
    const std::string name =
        argument->arguments.front().substr(0, argument->arguments.front().find('='));
    std::size_t uses = 0;
    for (const Instruction& instruction : instructions_) {
      if (instruction.keyword != "ARG" &&
          instruction.text.find("${" + name + "}") != std::string::npos) {
        ++uses;
      }
    }
    EXPECT_GT(uses, 0u) << "build argument " << name << " is declared but never used";
  }
}

TEST_F(DockerfileTest, BothStagesUseNvidiaCudaImagesOfTheChosenVersion) {
  const auto stages = all("FROM");
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_TRUE(stages[0]->arguments[0].starts_with("nvidia/cuda:${CUDA_VERSION}-cudnn-devel-"));
  EXPECT_TRUE(stages[1]->arguments[0].starts_with("nvidia/cuda:${CUDA_VERSION}-cudnn-runtime-"));
}

TEST_F(DockerfileTest, RunsTheInstallerTheReadmeUses) {
  std::string destination;
  for (const Instruction* copy : all("COPY")) {
    if (copy->arguments.front() == "scripts/install-deps.sh") {
      destination = copy->arguments.back();
    }
  }
  ASSERT_FALSE(destination.empty()) << "scripts/install-deps.sh is never copied";
  std::size_t runs = 0;
  for (const Instruction* run : all("RUN")) {
    runs += run->text.find("bash " + destination) != std::string::npos;
  }
  EXPECT_EQ(runs, 2u) << "both stages must install with " << destination;
}

TEST_F(DockerfileTest, RuntimeCopiesBinariesFromWhereTheBuildPutsThem) {
  std::string build_dir;
  for (const Instruction* run : all("RUN")) {
    if (const auto flag = run->text.find(" -B "); flag != std::string::npos) {
      std::istringstream(run->text.substr(flag + 4)) >> build_dir;
    }
  }
  ASSERT_FALSE(build_dir.empty()) << "no cmake -B in the build stage";
  const auto copies = all("COPY");
  const bool copies_bin = std::ranges::any_of(copies, [&](const Instruction* copy) {
    return copy->arguments.front() == "--from=build" &&
           copy->arguments.at(1) == build_dir + "/bin/";
  });
  EXPECT_TRUE(copies_bin) << "the runtime stage must copy " << build_dir << "/bin/";
  // That folder is where the CLI target writes tscope.
  EXPECT_NE(read_file(kSourceDir / "cli/CMakeLists.txt")
                .find("RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin"),
            std::string::npos);
}

TEST_F(DockerfileTest, RuntimeRunsAsANonRootUser) {
  const auto users = all("USER");
  ASSERT_FALSE(users.empty());
  EXPECT_NE(users.back()->arguments.front(), "root");
  EXPECT_NE(users.back()->arguments.front(), "0");
}

}  // namespace
}  // namespace tscope::doctor
