#pragma once
// Locates the real inputs tests run on (../shared traces, the Fashion-MNIST package) and skips
// a test with a clear message when they are not installed, instead of failing it. CI, where they
// are always installed, sets TSCOPE_REQUIRE_TEST_INPUTS=1 so that a missing input fails instead.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tscope::testing {

inline std::filesystem::path shared_data_path(const std::string& relative) {
  return std::filesystem::path(TSCOPE_SHARED_DATA_DIR) / relative;
}

// Small traces of our own making kept in the repository (tests/data, each with the script that
// made it).
inline std::filesystem::path repo_data_path(const std::string& relative) {
  return std::filesystem::path(TSCOPE_TEST_DATA_DIR) / relative;
}

inline std::filesystem::path fashion_mnist_dir() {
  return TSCOPE_FASHION_MNIST_DIR;
}

inline bool test_inputs_required() {
  const char* required = std::getenv("TSCOPE_REQUIRE_TEST_INPUTS");
  return required != nullptr && std::string(required) == "1";
}

}  // namespace tscope::testing

// Skips the calling test when `path` does not exist, naming what is missing and where; fails
// it instead when TSCOPE_REQUIRE_TEST_INPUTS=1.
#define TSCOPE_REQUIRE_FILE(path)                                                       \
  do {                                                                                  \
    if (!std::filesystem::exists(path)) {                                               \
      if (tscope::testing::test_inputs_required()) {                                    \
        FAIL() << "test input not found: " << (path)                                    \
               << " (TSCOPE_REQUIRE_TEST_INPUTS=1 demands every real input)";           \
      }                                                                                 \
      GTEST_SKIP() << "test input not found: " << (path)                                \
                   << " (real traces come from ../shared/data, Fashion-MNIST from the " \
                      "dataset-fashion-mnist package)";                                 \
    }                                                                                   \
  } while (0)
