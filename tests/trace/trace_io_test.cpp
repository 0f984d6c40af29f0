#include "tscope/trace/trace_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sample_trace.h"
#include "scratch_folder.h"
#include "tscope/trace/errors.h"

namespace tscope::trace {
namespace {

class TraceIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = tscope::testing::scratch_path(
        std::string("trace_io_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path write_text(const std::string& name, const std::string& text) {
    const auto path = directory_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::filesystem::path directory_;
};

TEST_F(TraceIoTest, SavesAndLoadsTscByExtension) {
  const Trace original = testing::make_sample_trace();
  const auto path = directory_ / "run.tsc";
  save_trace(original, path);
  EXPECT_EQ(load_trace(path), original);
}

TEST_F(TraceIoTest, InputFormatIsSniffedFromContentNotName) {
  const auto path = directory_ / "misnamed.json";
  save_trace(testing::make_sample_trace(), directory_ / "real.tsc");
  std::filesystem::copy_file(directory_ / "real.tsc", path);
  EXPECT_EQ(detect_input_format(path).format, TraceFormat::kTsc);
  EXPECT_EQ(load_trace(path).counts().spans, testing::make_sample_trace().counts().spans);
}

TEST_F(TraceIoTest, UnknownContentIsAFormatErrorNamingTheFile) {
  const auto path = write_text("notes.txt", "just some text");
  try {
    load_trace(path);
    FAIL() << "no error";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.path(), path);
    EXPECT_NE(std::string(error.what()).find("notes.txt"), std::string::npos);
  }
}

TEST_F(TraceIoTest, EmptyFileIsAFormatError) {
  EXPECT_THROW(load_trace(write_text("empty.tsc", "")), FormatError);
}

TEST_F(TraceIoTest, MissingFileIsAnIoError) {
  EXPECT_THROW(load_trace(directory_ / "absent.tsc"), IoError);
}

TEST_F(TraceIoTest, UnknownOutputExtensionIsRejectedWithTheSupportedList) {
  try {
    save_trace(testing::make_sample_trace(), directory_ / "out.xyz");
    FAIL() << "no error";
  } catch (const TraceError& error) {
    EXPECT_NE(std::string(error.what()).find(".tsc"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(directory_ / "out.xyz"));
}

TEST_F(TraceIoTest, BareExtensionIsNotAFileName) {
  EXPECT_THROW(format_for_output(directory_ / ".tsc"), TraceError);
}

}  // namespace
}  // namespace tscope::trace
