#include <gtest/gtest.h>

#include <filesystem>

#include "tsc_test_files.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/tsc_reader.h"

namespace tscope::trace {
namespace {

// Replays the fuzzer's corpus (seeds and every input that once crashed the reader): each must
// load or be rejected with a FormatError, never crash or throw anything else.
TEST(TscFuzzCorpus, EveryInputLoadsOrIsAFormatError) {
  const std::filesystem::path corpus = TSCOPE_TSC_CORPUS_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(corpus)) << corpus;
  std::size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    const testing::Bytes bytes =
        testing::tsc_file_from_fuzz_input(testing::read_bytes(entry.path()));
    SCOPED_TRACE(entry.path().string());
    try {
      read_tsc(bytes, entry.path());
    } catch (const FormatError&) {
    }
    ++inputs;
  }
  EXPECT_GT(inputs, 0u);
}

}  // namespace
}  // namespace tscope::trace
