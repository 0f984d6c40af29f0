#pragma once
// A uniquely named file under the system temp folder, written on construction, removed on
// destruction, for tests that feed files to readers and to the `tscope` binary.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "scratch_folder.h"

namespace tscope::regress::testing {

class TempFile {
 public:
  TempFile(std::string_view stem, std::string_view contents) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = tscope::testing::scratch_path(std::string(test->test_suite_name()) + "." +
                                          test->name() + "." + std::string(stem));
    std::ofstream(path_) << contents;
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tscope::regress::testing
