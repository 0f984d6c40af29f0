#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "sample_trace.h"
#include "scratch_folder.h"
#include "tsc_test_files.h"
#include "tscope/trace/errors.h"
#include "tscope/trace/tsc_reader.h"
#include "tscope/trace/tsc_writer.h"

namespace tscope::trace {
namespace {

using testing::Bytes;

// Chunk types, as docs/trace-format.md specifies them.
constexpr std::uint8_t kStringsChunk = 1;
constexpr std::uint8_t kProcessesChunk = 2;
constexpr std::uint8_t kTracksChunk = 3;
constexpr std::uint8_t kSpansChunk = 4;

Bytes sample_file() {
  const auto path = tscope::testing::scratch_path("tsc_corruption.tsc");
  write_tsc(testing::make_sample_trace(), path);
  Bytes bytes = testing::read_bytes(path);
  std::filesystem::remove(path);
  return bytes;
}

// A file with one process and one host track, ready for a crafted events chunk.
Bytes file_with_one_track() {
  Bytes file = testing::file_header();
  testing::append_chunk(file, kProcessesChunk, {0, 1, 2, 0, 0, 1, 0});
  testing::append_chunk(file, kTracksChunk, {0, 1, 0, 0, 0, 2, 1, 1, 0});
  return file;
}

std::uint64_t error_offset(const Bytes& file) {
  try {
    read_tsc(file, "bad.tsc");
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.tsc"), std::string::npos) << error.what();
    return error.offset();
  }
  ADD_FAILURE() << "no FormatError";
  return 0;
}

// Where the reader places the error of a spans chunk of `payload` after file_with_one_track(),
// counted from the start of that chunk.
std::uint64_t spans_chunk_error_offset(const Bytes& payload) {
  Bytes file = file_with_one_track();
  const std::size_t chunk = file.size();
  testing::append_chunk(file, kSpansChunk, payload);
  return error_offset(file) - chunk;
}

TEST(TscCorruption, CraftedFileWithOneTrackIsValid) {
  const TscReadResult result = read_tsc(file_with_one_track(), "ok.tsc");
  ASSERT_EQ(result.trace.tracks().size(), 1u);
  EXPECT_EQ(result.trace.processes()[0].pid, 1);
}

TEST(TscCorruption, BadMagicIsReportedAtByteZero) {
  Bytes file = sample_file();
  file[0] = 'X';
  EXPECT_EQ(error_offset(file), 0u);
}

TEST(TscCorruption, ShortFileThatIsNotAHeaderPrefixIsBadMagic) {
  EXPECT_EQ(error_offset({'{', '"'}), 0u);
}

TEST(TscCorruption, UnsupportedVersionIsReportedAtTheVersionField) {
  Bytes file = testing::file_header(kTscVersion + 1);
  EXPECT_EQ(error_offset(file), 8u);
}

TEST(TscCorruption, FlippedPayloadByteFailsTheChecksum) {
  Bytes file = sample_file();
  file[16 + 16] ^= 0x40;  // first byte of the first chunk's payload
  EXPECT_EQ(error_offset(file), 16u + 12u);
}

TEST(TscCorruption, FlippedHeaderSizeFailsTheChecksum) {
  Bytes file = sample_file();
  file[16 + 4] ^= 0x01;  // uncompressed size of the first chunk
  EXPECT_EQ(error_offset(file), 16u + 12u);
}

TEST(TscCorruption, AbsurdUncompressedSizeIsRejectedBeforeAllocating) {
  Bytes file = testing::file_header();
  Bytes header{kStringsChunk, 0, 0, 0};
  testing::put_le32(header, 0xfffffff0u);
  testing::put_le32(header, 8);
  testing::put_le32(header, 0);
  file.insert(file.end(), header.begin(), header.end());
  file.resize(file.size() + 8, 0);
  EXPECT_EQ(error_offset(file), 16u + 4u);
}

TEST(TscCorruption, UnknownChunkTypeIsRejected) {
  Bytes file = testing::file_header();
  testing::append_chunk(file, 200, {1, 2, 3});
  EXPECT_EQ(error_offset(file), 16u);
}

TEST(TscCorruption, UnterminatedVarintIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset({0, 1, 0xff, 0xff, 0xff, 0xff, 0xff}), 0u);
}

TEST(TscCorruption, OverlongVarintIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset(
                {0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}),
            0u);
}

TEST(TscCorruption, EventCountBeyondThePayloadIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset({0, 0xff, 0xff, 0xff, 0xff, 0x0f}), 0u);
}

TEST(TscCorruption, EventOnUndefinedTrackIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset({5, 1, 2, 2, 0, 0, 0}), 0u);
}

TEST(TscCorruption, UndefinedStringIdIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset({0, 1, 2, 2, 9, 0, 0}), 0u);
}

TEST(TscCorruption, UnknownCategoryIsRejected) {
  EXPECT_EQ(spans_chunk_error_offset({0, 1, 2, 2, 0, 99, 0}), 0u);
}

TEST(TscCorruption, StringsChunkOutOfSequenceIsRejected) {
  Bytes file = testing::file_header();
  testing::append_chunk(file, kStringsChunk, {5, 1, 1, 'x'});
  EXPECT_EQ(error_offset(file), 16u);
}

TEST(TscCorruption, TrailingBytesInAChunkAreRejected) {
  Bytes file = testing::file_header();
  testing::append_chunk(file, kStringsChunk, {1, 1, 1, 'x', 0});
  EXPECT_EQ(error_offset(file), 16u);
}

TEST(TscCorruption, RandomBytesAfterAValidHeaderNeverCrash) {
  std::mt19937 random(1234);
  for (int round = 0; round < 500; ++round) {
    Bytes file = testing::file_header();
    const std::size_t size = random() % 200;
    for (std::size_t each = 0; each < size; ++each)
      file.push_back(static_cast<std::uint8_t>(random()));
    try {
      read_tsc(file, "random.tsc");
    } catch (const FormatError& error) {
      EXPECT_NE(std::string(error.what()).find("random.tsc"), std::string::npos) << error.what();
    }
  }
}

TEST(TscCorruption, EveryFlippedByteGivesAnErrorOrTheSameTrace) {
  const Bytes original = sample_file();
  const Trace expected = read_tsc(original, "good.tsc").trace;
  for (std::size_t offset = 0; offset < original.size(); ++offset) {
    Bytes file = original;
    file[offset] ^= 0x5a;
    SCOPED_TRACE("flipped byte " + std::to_string(offset));
    try {
      const TscReadResult result = read_tsc(file, "flipped.tsc");
      // Only a flip in a length field can turn the rest into a cut-off tail.
      EXPECT_TRUE(result.truncated() || result.trace == expected);
    } catch (const FormatError& error) {
      EXPECT_NE(std::string(error.what()).find("flipped.tsc"), std::string::npos) << error.what();
    }
  }
}

TEST(TscCorruption, MissingFileIsAnIoError) {
  EXPECT_THROW(read_tsc("/nonexistent/trace.tsc"), IoError);
}

}  // namespace
}  // namespace tscope::trace
