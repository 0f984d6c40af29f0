#pragma once
// A folder of this test process's own under the system temp folder, made on first use and removed
// when the process exits: test runs that share a machine (a CI job beside a developer's build)
// never write over, or delete, each other's files.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tscope::testing {

class ScratchFolder {
 public:
  ScratchFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("tscope_test_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `name` inside this process's scratch folder.
inline std::filesystem::path scratch_path(const std::string& name) {
  static const ScratchFolder folder;
  return folder.path() / name;
}

}  // namespace tscope::testing
